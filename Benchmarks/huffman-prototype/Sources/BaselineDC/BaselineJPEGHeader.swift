/// The markers before the first scan of a baseline (SOF0) or extended-sequential (SOF1)
/// 8-bit Huffman JPEG whose single scan holds every component.
struct BaselineJPEGHeader {
    struct FrameComponent {
        let id: UInt8
        let horizontal: Int
        let vertical: Int
        let quantTable: Int
    }

    struct ScanComponent {
        /// Index into `components` (frame order); scan order may differ.
        let frameIndex: Int
        let dcTable: Int
        let acTable: Int
    }

    var width = 0
    var height = 0
    var components: [FrameComponent] = []
    /// The DC step of each of the four quantisation table slots, as defined when the scan starts.
    var dcQuant: [Int32?] = [nil, nil, nil, nil]
    var dcTables: [HuffmanSpec?] = [nil, nil, nil, nil]
    var acTables: [HuffmanSpec?] = [nil, nil, nil, nil]
    var restartInterval = 0
    var scan: [ScanComponent] = []
    /// Offset of the first entropy-coded byte.
    var entropyStart = 0

    /// Parses from SOI through the first SOS header.
    init(_ bytes: UnsafeBufferPointer<UInt8>) throws(DCDecodeFallback) {
        let count = bytes.count
        guard count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else {
            throw DCDecodeFallback(.malformedHeader, at: 0)
        }
        var position = 2
        var sawFrame = false
        while true {
            // A marker is 0xFF, optional 0xFF fill, then the code; anything else between
            // segments makes libjpeg warn, so it is a fallback here.
            guard position < count, bytes[position] == 0xFF else {
                throw DCDecodeFallback(.malformedHeader, at: position)
            }
            while position < count, bytes[position] == 0xFF { position += 1 }
            guard position < count else { throw DCDecodeFallback(.malformedHeader, at: position) }
            let marker = bytes[position]
            position += 1
            guard position + 2 <= count else { throw DCDecodeFallback(.malformedHeader, at: position) }
            let length = Int(bytes[position]) << 8 | Int(bytes[position + 1])
            guard length >= 2, position + length <= count else {
                throw DCDecodeFallback(.malformedHeader, at: position)
            }
            let body = position + 2
            let end = position + length
            switch marker {
            case 0xE0...0xEF, 0xFE:
                break
            case 0xC0, 0xC1:
                guard !sawFrame else { throw DCDecodeFallback(.malformedHeader, at: position) }
                sawFrame = true
                try parseFrame(bytes, body, end)
            case 0xC2, 0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF, 0xCC:
                throw DCDecodeFallback(.unsupportedProcess, at: position)
            case 0xC4:
                try parseHuffman(bytes, body, end)
            case 0xDB:
                try parseQuant(bytes, body, end)
            case 0xDD:
                guard length == 4 else { throw DCDecodeFallback(.malformedHeader, at: position) }
                restartInterval = Int(bytes[body]) << 8 | Int(bytes[body + 1])
            case 0xDA:
                guard sawFrame else { throw DCDecodeFallback(.malformedHeader, at: position) }
                try parseScan(bytes, body, end)
                entropyStart = end
                return
            default:
                // DNL, DHP, EXP, JPGn, RSTn, TEM, a second SOI, an early EOI, reserved codes.
                throw DCDecodeFallback(.unsupportedLayout, at: position)
            }
            position = end
        }
    }

    private mutating func parseFrame(
        _ bytes: UnsafeBufferPointer<UInt8>, _ body: Int, _ end: Int
    ) throws(DCDecodeFallback) {
        guard end - body >= 6 else { throw DCDecodeFallback(.malformedHeader, at: body) }
        guard bytes[body] == 8 else { throw DCDecodeFallback(.unsupportedProcess, at: body) }
        height = Int(bytes[body + 1]) << 8 | Int(bytes[body + 2])
        width = Int(bytes[body + 3]) << 8 | Int(bytes[body + 4])
        let componentCount = Int(bytes[body + 5])
        // Height 0 means a DNL marker follows the scan; 65500 is libjpeg's limit.
        guard width > 0, height > 0, width <= 65500, height <= 65500 else {
            throw DCDecodeFallback(.unsupportedLayout, at: body)
        }
        guard componentCount == 1 || componentCount == 3 else {
            throw DCDecodeFallback(.unsupportedLayout, at: body)
        }
        guard end - body == 6 + 3 * componentCount else {
            throw DCDecodeFallback(.malformedHeader, at: body)
        }
        for index in 0..<componentCount {
            let at = body + 6 + 3 * index
            let id = bytes[at]
            let horizontal = Int(bytes[at + 1] >> 4)
            let vertical = Int(bytes[at + 1] & 15)
            let quantTable = Int(bytes[at + 2])
            guard (1...4).contains(horizontal), (1...4).contains(vertical), quantTable < 4 else {
                throw DCDecodeFallback(.malformedHeader, at: at)
            }
            // Duplicate identifiers make the scan's mapping ambiguous.
            guard !components.contains(where: { $0.id == id }) else {
                throw DCDecodeFallback(.unsupportedLayout, at: at)
            }
            components.append(FrameComponent(id: id, horizontal: horizontal, vertical: vertical, quantTable: quantTable))
        }
    }

    private mutating func parseHuffman(
        _ bytes: UnsafeBufferPointer<UInt8>, _ body: Int, _ end: Int
    ) throws(DCDecodeFallback) {
        var at = body
        while at < end {
            let classAndSlot = bytes[at]
            let isAC = classAndSlot >> 4
            let slot = Int(classAndSlot & 15)
            guard isAC <= 1, slot < 4, at + 17 <= end else {
                throw DCDecodeFallback(.badHuffmanTable, at: at)
            }
            var counts = [Int](repeating: 0, count: 17)
            var total = 0
            for length in 1...16 {
                counts[length] = Int(bytes[at + length])
                total += counts[length]
            }
            guard total <= 256, at + 17 + total <= end else {
                throw DCDecodeFallback(.badHuffmanTable, at: at)
            }
            let symbols = (0..<total).map { bytes[at + 17 + $0] }
            let spec = try HuffmanSpec(counts: counts, symbols: symbols, isDC: isAC == 0, at: at)
            if isAC == 0 { dcTables[slot] = spec } else { acTables[slot] = spec }
            at += 17 + total
        }
        guard at == end else { throw DCDecodeFallback(.badHuffmanTable, at: at) }
    }

    private mutating func parseQuant(
        _ bytes: UnsafeBufferPointer<UInt8>, _ body: Int, _ end: Int
    ) throws(DCDecodeFallback) {
        var at = body
        while at < end {
            let precision = bytes[at] >> 4
            let slot = Int(bytes[at] & 15)
            let size = precision == 0 ? 64 : 128
            guard precision <= 1, slot < 4, at + 1 + size <= end else {
                throw DCDecodeFallback(.badQuantTable, at: at)
            }
            let first = precision == 0
                ? Int32(bytes[at + 1])
                : Int32(bytes[at + 1]) << 8 | Int32(bytes[at + 2])
            // libjpeg-turbo keeps steps as 16-bit signed multipliers; larger ones would
            // change sign there, so they are left to it.
            guard first <= 32767 else { throw DCDecodeFallback(.badQuantTable, at: at) }
            dcQuant[slot] = first
            at += 1 + size
        }
        guard at == end else { throw DCDecodeFallback(.badQuantTable, at: at) }
    }

    private mutating func parseScan(
        _ bytes: UnsafeBufferPointer<UInt8>, _ body: Int, _ end: Int
    ) throws(DCDecodeFallback) {
        guard end > body else { throw DCDecodeFallback(.malformedHeader, at: body) }
        let count = Int(bytes[body])
        guard end - body == 4 + 2 * count else { throw DCDecodeFallback(.malformedHeader, at: body) }
        // One scan with every component: anything else is a multi-scan file.
        guard count == components.count else { throw DCDecodeFallback(.unsupportedLayout, at: body) }
        for index in 0..<count {
            let at = body + 1 + 2 * index
            guard let frameIndex = components.firstIndex(where: { $0.id == bytes[at] }),
                  !scan.contains(where: { $0.frameIndex == frameIndex }) else {
                throw DCDecodeFallback(.unsupportedLayout, at: at)
            }
            let dc = Int(bytes[at + 1] >> 4)
            let ac = Int(bytes[at + 1] & 15)
            guard dc < 4, ac < 4, dcTables[dc] != nil, acTables[ac] != nil else {
                throw DCDecodeFallback(.badHuffmanTable, at: at)
            }
            guard dcQuant[components[frameIndex].quantTable] != nil else {
                throw DCDecodeFallback(.badQuantTable, at: at)
            }
            scan.append(ScanComponent(frameIndex: frameIndex, dcTable: dc, acTable: ac))
        }
        let spectral = body + 1 + 2 * count
        guard bytes[spectral] == 0, bytes[spectral + 1] == 63, bytes[spectral + 2] == 0 else {
            throw DCDecodeFallback(.unsupportedLayout, at: spectral)
        }
        if count > 1 {
            let blocks = scan.reduce(0) { $0 + components[$1.frameIndex].horizontal * components[$1.frameIndex].vertical }
            guard blocks <= 10 else { throw DCDecodeFallback(.unsupportedLayout, at: body) }
        }
    }
}
