/// The entropy stage of a 1/8-scale baseline JPEG decode: every block's DC coefficient,
/// with every AC symbol skipped through multi-symbol tables instead of decoded.
public enum DCOnlyDecoder {
    /// Decodes `bytes`, or throws `DCDecodeFallback` for anything libjpeg-turbo should decode instead.
    public static func decode(_ bytes: [UInt8]) throws(DCDecodeFallback) -> DCPlanes {
        let result: Result<DCPlanes, DCDecodeFallback> = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(DCDecodeFallback) in try decode(buffer) }
        }
        return try result.get()
    }

    /// Decodes `bytes`, or throws `DCDecodeFallback` for anything libjpeg-turbo should decode instead.
    public static func decode(_ bytes: UnsafeBufferPointer<UInt8>) throws(DCDecodeFallback) -> DCPlanes {
        let header = try BaselineJPEGHeader(bytes)
        let frame = header.components
        let maxH = frame.map(\.horizontal).max()!
        let maxV = frame.map(\.vertical).max()!
        let interleaved = header.scan.count > 1

        // Block grids: an interleaved scan pads every component to whole MCUs; a
        // single-component scan covers just the component, one block per MCU.
        let mcusWide: Int
        let mcusHigh: Int
        var grids: [(wide: Int, high: Int)] = []
        if interleaved {
            mcusWide = (header.width + 8 * maxH - 1) / (8 * maxH)
            mcusHigh = (header.height + 8 * maxV - 1) / (8 * maxV)
            grids = frame.map { (mcusWide * $0.horizontal, mcusHigh * $0.vertical) }
        } else {
            let component = frame[0]
            let width = (header.width * component.horizontal + maxH - 1) / maxH
            let height = (header.height * component.vertical + maxV - 1) / maxV
            mcusWide = (width + 7) / 8
            mcusHigh = (height + 7) / 8
            grids = [(mcusWide, mcusHigh)]
        }

        var specs: [HuffmanSpec] = []
        var outputs: [UnsafeMutablePointer<Int16>] = []
        defer { for output in outputs { output.deallocate() } }
        for grid in grids {
            let output = UnsafeMutablePointer<Int16>.allocate(capacity: grid.wide * grid.high)
            outputs.append(output)
        }

        // One plan per block of the MCU, in scan order.
        var plans: [BlockPlan] = []
        for (scanIndex, scanComponent) in header.scan.enumerated() {
            let component = frame[scanComponent.frameIndex]
            let dc = header.dcTables[scanComponent.dcTable]!
            let ac = header.acTables[scanComponent.acTable]!
            specs.append(dc)
            specs.append(ac)
            let wide = grids[scanComponent.frameIndex].wide
            let (h, v) = interleaved ? (component.horizontal, component.vertical) : (1, 1)
            for y in 0..<v {
                for x in 0..<h {
                    plans.append(BlockPlan(
                        dc: dc.lookup, ac: ac.lookup,
                        predictor: scanIndex,
                        output: outputs[scanComponent.frameIndex],
                        offsetInMCU: y * wide + x,
                        columnStep: h,
                        rowStep: v * wide))
                }
            }
        }

        try withExtendedLifetime(specs) { () throws(DCDecodeFallback) in
            try plans.withUnsafeBufferPointer { (planBuffer) throws(DCDecodeFallback) in
                try decodeScan(
                    bytes, start: header.entropyStart, plans: planBuffer,
                    mcusWide: mcusWide, mcusHigh: mcusHigh, restartInterval: header.restartInterval)
            }
        }

        var components: [DCPlanes.Component] = []
        for (index, grid) in grids.enumerated() {
            let quant = header.dcQuant[frame[index].quantTable]!
            let component = frame[index]
            components.append(DCPlanes.Component(
                blocksWide: grid.wide, blocksHigh: grid.high,
                scaledWidth: (header.width * component.horizontal + 8 * maxH - 1) / (8 * maxH),
                scaledHeight: (header.height * component.vertical + 8 * maxV - 1) / (8 * maxV),
                dcQuant: quant,
                coefficients: Array(UnsafeBufferPointer(start: outputs[index], count: grid.wide * grid.high))))
        }
        return DCPlanes(width: header.width, height: header.height, components: components)
    }

    private static func decodeScan(
        _ bytes: UnsafeBufferPointer<UInt8>, start: Int, plans: UnsafeBufferPointer<BlockPlan>,
        mcusWide: Int, mcusHigh: Int, restartInterval: Int
    ) throws(DCDecodeFallback) {
        let lookahead = HuffmanSpec.lookahead
        var reader = EntropyBitReader(base: bytes.baseAddress!, end: bytes.count, position: start)
        let predictors = UnsafeMutablePointer<Int16>.allocate(capacity: 4)
        predictors.initialize(repeating: 0, count: 4)
        defer { predictors.deallocate() }
        var restartsLeft = restartInterval
        var nextRestart: UInt8 = 0
        let blockCount = plans.count
        let plan = plans.baseAddress!

        for mcuRow in 0..<mcusHigh {
            for mcuColumn in 0..<mcusWide {
                if restartInterval != 0 {
                    if restartsLeft == 0 {
                        reader = try reader.skippingToMarker(0xD0 &+ nextRestart)
                        nextRestart = (nextRestart &+ 1) & 7
                        predictors.update(repeating: 0, count: 4)
                        restartsLeft = restartInterval
                    }
                    restartsLeft -= 1
                }
                for blockIndex in 0..<blockCount {
                    let block = plan[blockIndex]

                    // DC: category, then that many magnitude bits.
                    reader.ensure32()
                    var difference: Int
                    let dcWhole = block.dc.skip[reader.peek(lookahead)]
                    if dcWhole != 0 {
                        reader.consume(Int(dcWhole & 31))
                        difference = Int(Int16(truncatingIfNeeded: dcWhole >> 16))
                    } else {
                        let category: Int
                        let dcEntry = block.dc.single[reader.peek(lookahead)]
                        if dcEntry != 0 {
                            reader.consume(Int(dcEntry & 31))
                            category = Int(dcEntry >> 8)
                        } else {
                            let long = decodeLong(reader.peek(16), block.dc)
                            guard long >= 0 else { throw DCDecodeFallback(.badHuffmanCode, at: reader.position) }
                            reader.consume(long >> 8)
                            category = long & 255
                        }
                        difference = 0
                        if category != 0 {
                            let raw = reader.peek(category)
                            reader.consume(category)
                            difference = raw < 1 << (category - 1) ? raw - (1 << category) + 1 : raw
                        }
                    }
                    // libjpeg keeps the predictor as an int but stores the coefficient as
                    // 16 bits; the low 16 bits of a sum depend only on the operands' low 16.
                    let dcValue = predictors[block.predictor] &+ Int16(truncatingIfNeeded: difference)
                    predictors[block.predictor] = dcValue
                    block.output[mcuRow * block.rowStep + mcuColumn * block.columnStep + block.offsetInMCU] = dcValue

                    // AC: positions only, as many symbols per probe as the window holds.
                    var position = 1
                    while true {
                        reader.ensure32()
                        let window = reader.peek(lookahead)
                        let skip = block.ac.skip[window]
                        if skip != 0, position + Int((skip >> 16) & 0xFF) < 64 {
                            reader.consume(Int(skip & 31))
                            position += Int((skip >> 8) & 0xFF)
                            if skip & (1 << 24) != 0 || position >= 64 { break }
                            continue
                        }
                        // The block ends inside the window, or the symbol is too long for it.
                        let entry = block.ac.single[window]
                        let symbol: Int
                        if entry != 0 {
                            reader.consume(Int(entry & 31))
                            symbol = Int(entry >> 8)
                        } else {
                            let long = decodeLong(reader.peek(16), block.ac)
                            guard long >= 0 else { throw DCDecodeFallback(.badHuffmanCode, at: reader.position) }
                            reader.consume(long >> 8)
                            symbol = long & 255
                        }
                        let magnitude = symbol & 15
                        let run = symbol >> 4
                        if magnitude != 0 {
                            reader.consume(magnitude)
                            position += run + 1
                        } else if run == 15 {
                            position += 16
                        } else {
                            break
                        }
                        if position >= 64 { break }
                    }
                }
                if reader.usedFakeBits {
                    throw DCDecodeFallback(.truncatedScan, at: reader.position)
                }
            }
        }
        _ = try reader.skippingToMarker(0xD9)
    }

    /// A code longer than the lookahead window, or no code at all, decoded bit by bit from
    /// the next 16 bits: `length << 8 | symbol`, or -1 when no code matches. Pure, so the
    /// reader stays in registers.
    @inline(never)
    private static func decodeLong(_ next16: Int, _ table: HuffmanLookup) -> Int {
        for length in 1...16 {
            let code = Int32(next16 >> (16 - length))
            if code <= table.maxCode[length] {
                return length << 8 | Int(table.values[Int(code + table.valueOffset[length])])
            }
        }
        return -1
    }
}

/// What the entropy loop needs for one block of the MCU.
struct BlockPlan {
    let dc: HuffmanLookup
    let ac: HuffmanLookup
    /// Which scan component's DC predictor the block updates.
    let predictor: Int
    let output: UnsafeMutablePointer<Int16>
    /// Offset of the block inside its MCU's first block (row-major in the component grid).
    let offsetInMCU: Int
    /// Grid columns per MCU column.
    let columnStep: Int
    /// Grid entries per MCU row.
    let rowStep: Int
}
