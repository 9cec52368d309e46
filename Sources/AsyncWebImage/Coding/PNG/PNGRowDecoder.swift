import CSpng

/// Decodes a PNG row by row with libspng's progressive API, straight into
/// the pixel buffer of the image being built.
///
/// Used where a single `spng_decode_image` call cannot do the job: 16-bit
/// PNGs (each row is rounded to 8 bits as it arrives, so no 16-bit copy of
/// the whole image ever exists) and previews of a download in progress
/// (decoding stops cleanly where the data ends).
enum PNGRowDecoder {
    /// How far a row-by-row decode got.
    struct Progress: Sendable, Equatable {
        /// Rows (of all passes) decoded.
        var rows = 0
        /// Adam7 passes decoded completely: 0...7 for interlaced images;
        /// 0 or 1 for others.
        var completedPasses = 0
        /// Whether every row of the image was decoded.
        var isComplete = false
    }

    /// First column and column step of each Adam7 pass.
    static let adam7Columns: [(start: Int, step: Int)] = [(0, 8), (4, 8), (0, 4), (2, 4), (0, 2), (1, 2), (0, 1)]

    /// Initialises `context` for progressive decoding with `plan`'s format.
    ///
    /// - Returns: `false` when the data ends before the first image data and
    ///   `toleratingTruncation` is set.
    /// - Throws: ``ImageError/undecodable(_:_:)`` for bad data, and for
    ///   missing data unless `toleratingTruncation`.
    @discardableResult
    static func start(_ context: SpngContext, plan: PNGDecodePlan, toleratingTruncation: Bool = false) throws(ImageError) -> Bool {
        let flags = plan.spngFlags | Int32(SPNG_DECODE_PROGRESSIVE.rawValue)
        let code = spng_decode_image(context.raw, nil, 0, plan.spngFormat, flags)
        if toleratingTruncation && SpngContext.isEndOfData(code) { return false }
        try context.check(code)
        return true
    }

    /// Decodes every row of a non-interlaced image, in order, into one
    /// reused row of `plan.rowBytes` (16-bit samples rounded to 8 bits as
    /// they arrive) and hands each to `body`: the loop the streaming shrink
    /// and resample routes share. Call ``start(_:plan:toleratingTruncation:)`` first.
    ///
    /// - Throws: libspng's error for bad or missing data; what `body` throws.
    static func forEachSequentialRow(
        _ context: SpngContext, plan: PNGDecodePlan, _ body: (UnsafeMutablePointer<UInt8>) throws -> Void
    ) throws {
        var row = [UInt8](repeating: 0, count: plan.rowBytes)
        var wideRow = [UInt16](repeating: 0, count: plan.isSixteenBit ? plan.rowBytes : 0)
        try row.withUnsafeMutableBufferPointer { row in
            guard let rowBase = row.baseAddress else { throw ImageError.undecodable(.png, "empty row") }
            for y in 0..<plan.height {
                let code: Int32
                if plan.isSixteenBit {
                    code = wideRow.withUnsafeMutableBufferPointer { wide in
                        let code = spng_decode_row(context.raw, wide.baseAddress, plan.spngRowBytes)
                        if let source = wide.baseAddress { PNGDecodePlan.reduce(source, to: rowBase, count: plan.rowBytes) }
                        return code
                    }
                } else {
                    code = spng_decode_row(context.raw, rowBase, plan.rowBytes)
                }
                guard code == 0 || (code == SPNG_EOI.rawValue && y == plan.height - 1) else {
                    throw context.error(code == SPNG_EOI.rawValue ? Int32(SPNG_EINTERNAL.rawValue) : code)
                }
                try body(rowBase)
            }
        }
    }

    /// Decodes rows into `pixels` (tightly packed rows of `plan.rowBytes`)
    /// until the image is complete or, with `toleratingTruncation`, until the
    /// data runs out. Only the pixels of each decoded row's pass are written:
    /// the others keep whatever `pixels` held.
    ///
    /// - Throws: ``ImageError/undecodable(_:_:)`` for bad data (CRC, zlib,
    ///   filter errors), and for missing data unless `toleratingTruncation`.
    static func decodeRows(
        _ context: SpngContext,
        plan: PNGDecodePlan,
        into pixels: UnsafeMutableRawBufferPointer,
        toleratingTruncation: Bool
    ) throws(ImageError) -> Progress {
        guard let base = pixels.baseAddress, pixels.count >= plan.rowBytes * plan.height else {
            throw .undecodable(.png, "pixel buffer too small")
        }
        var progress = Progress()
        // One 16-bit row, reused: only 16-bit images need it.
        var wideRow = [UInt16](repeating: 0, count: plan.isSixteenBit ? plan.rowBytes : 0)
        let channels = plan.pixelFormat.channelCount
        // Each of the seven passes has at most `height` rows: a hard bound
        // on the loop whatever libspng reports.
        for _ in 0..<(plan.height * 7 + 1) {
            var info = spng_row_info()
            let infoCode = spng_get_row_info(context.raw, &info)
            if infoCode != 0 {
                if toleratingTruncation && SpngContext.isEndOfData(infoCode) { return progress }
                throw context.error(infoCode)
            }
            let row = Int(info.row_num)
            let pass = plan.isInterlaced ? Int(info.pass) : 0
            guard row < plan.height, (0..<7).contains(pass) else { throw .undecodable(.png, "row \(row) out of range") }
            progress.completedPasses = plan.isInterlaced ? pass : 0
            let destination = base + row * plan.rowBytes
            let code: Int32
            if plan.isSixteenBit {
                code = wideRow.withUnsafeMutableBytes { spng_decode_row(context.raw, $0.baseAddress, $0.count) }
            } else {
                code = spng_decode_row(context.raw, destination, plan.rowBytes)
            }
            let isLast = code == SPNG_EOI.rawValue
            if code != 0 && !isLast {
                if toleratingTruncation && SpngContext.isEndOfData(code) { return progress }
                throw context.error(code)
            }
            if plan.isSixteenBit {
                let (start, step) = plan.isInterlaced ? adam7Columns[pass] : (0, 1)
                let target = destination.assumingMemoryBound(to: UInt8.self)
                wideRow.withUnsafeBufferPointer { wide in
                    guard let source = wide.baseAddress else { return }
                    if step == 1 {
                        PNGDecodePlan.reduce(source, to: target, count: plan.rowBytes)
                    } else {
                        for x in stride(from: start, to: plan.width, by: step) {
                            PNGDecodePlan.reduce(source + x * channels, to: target + x * channels, count: channels)
                        }
                    }
                }
            }
            progress.rows += 1
            if isLast {
                progress.completedPasses = plan.isInterlaced ? 7 : 1
                progress.isComplete = true
                return progress
            }
        }
        throw .undecodable(.png, "more rows than the header declares")
    }
}
