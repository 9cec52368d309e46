import CSpng

extension PNGCoder {
    /// The whole factor to box-shrink by while decoding, for an image of
    /// `plan` reduced to `target` with `filter`, or `nil` when no box of 2
    /// or more applies (the rows are then resampled as they are decoded).
    ///
    /// With the `.area` speed option, the largest whole factor (the area
    /// resample that follows finishes the job), averaging the stored values.
    /// With the others, the box leaves at least ``thumbnailGap`` times the
    /// target for the filter and averages linear light, whatever light the
    /// filter then works in: a box is cheap (one add a sample) but soft,
    /// and shrinking further with it washed out thin lines. Judged by the
    /// quality panel (`awi-bench --scenario thumbnail-quality`) on 24 real
    /// PNGs, a linear box to 3× then Lanczos-3 on encoded values led
    /// libvips (a box to 2× on encoded values, then Lanczos-3) under the
    /// area average and the linear Lanczos-3 by about 2 points, and was
    /// within 0.5 of it under the encoded Lanczos-3; a box to 2× left 7 of
    /// the 24 more than 2 points behind under the area average. The linear
    /// box also keeps the mean brightness of fine light-on-dark patterns.
    static func shrinkFactor(plan: PNGDecodePlan, target: PixelSize, filter: ImageTransformers.Resize.Filter = ImageResampler.defaultFilter) -> Int? {
        guard target.width > 0, target.height > 0 else { return nil }
        let ratio = min(plan.width / target.width, plan.height / target.height)
        let factor = min(filter == .area ? ratio : ratio / thumbnailGap, BoxReducer.maximumFactor)
        return factor >= 2 ? factor : nil
    }

    /// How much larger than a thumbnail its box-shrunk decode is at least
    /// (except with `.area`, or when the full size is smaller).
    static let thumbnailGap = 3

    /// Decodes row by row into a ``BoxReducer``, so that only one row of the
    /// full-size image ever exists: a thumbnail of a 100-megapixel PNG costs
    /// the thumbnail's memory, not 400 MB. The result is `factor` times
    /// smaller (rounded up); the caller resamples it to the exact size.
    ///
    /// - Throws: ``ImageError/undecodable(_:_:)`` as for a full decode
    ///   (truncated data included).
    static func decodeShrinking(
        _ context: SpngContext, png: UnsafeRawBufferPointer, plan: PNGDecodePlan, factor: Int, linear: Bool = false,
        maximumInflatedBytes: Int = PNGInflatedImage.maximumInflatedBytes
    ) throws -> Image {
        if var inflated = PNGInflatedImage(png: png, context: context, plan: plan, maximumInflatedBytes: maximumInflatedBytes, reduced: true),
           let image = shrink(&inflated, plan: plan, factor: factor, linear: linear) {
            return image
        }
        if plan.isInterlaced { return try decodeShrinkingInterlaced(context, plan: plan, factor: factor, linear: linear) }
        try PNGRowDecoder.start(context, plan: plan)
        var reducer = BoxReducer(sourceWidth: plan.width, sourceHeight: plan.height, factor: factor, pixelFormat: plan.pixelFormat, linear: linear)
        return try Image.make(width: reducer.size.width, height: reducer.size.height, pixelFormat: plan.pixelFormat, format: .png) { output in
            try PNGRowDecoder.forEachSequentialRow(context, plan: plan) { reducer.add(row: $0, output: output) }
        }
    }

    /// The interlaced variant: each row of each Adam7 pass is decoded into
    /// one reused full-width row and its pixels are added to a
    /// ``ScatteredBoxReducer``, so an interlaced thumbnail never holds the
    /// full-size image either.
    private static func decodeShrinkingInterlaced(_ context: SpngContext, plan: PNGDecodePlan, factor: Int, linear: Bool) throws -> Image {
        try PNGRowDecoder.start(context, plan: plan)
        var reducer = ScatteredBoxReducer(sourceWidth: plan.width, sourceHeight: plan.height, factor: factor, pixelFormat: plan.pixelFormat, linear: linear)
        var row = [UInt8](repeating: 0, count: plan.rowBytes)
        var wideRow = [UInt16](repeating: 0, count: plan.isSixteenBit ? plan.rowBytes : 0)
        let channels = plan.pixelFormat.channelCount
        try row.withUnsafeMutableBufferPointer { row in
            guard let rowBase = row.baseAddress else { throw ImageError.undecodable(.png, "empty row") }
            // Seven passes of at most `height` rows each: a hard bound on the loop.
            for _ in 0..<(plan.height * 7) {
                var info = spng_row_info()
                try context.check(spng_get_row_info(context.raw, &info))
                let (y, pass) = (Int(info.row_num), Int(info.pass))
                guard y < plan.height, (0..<7).contains(pass) else { throw ImageError.undecodable(.png, "row \(y) out of range") }
                let (start, step) = PNGRowDecoder.adam7Columns[pass]
                let code: Int32
                if plan.isSixteenBit {
                    code = wideRow.withUnsafeMutableBufferPointer { wide in
                        let code = spng_decode_row(context.raw, wide.baseAddress, plan.spngRowBytes)
                        if let source = wide.baseAddress {
                            for x in stride(from: start, to: plan.width, by: step) {
                                PNGDecodePlan.reduce(source + x * channels, to: rowBase + x * channels, count: channels)
                            }
                        }
                        return code
                    }
                } else {
                    code = spng_decode_row(context.raw, rowBase, plan.rowBytes)
                }
                guard code == 0 || code == SPNG_EOI.rawValue else { throw context.error(code) }
                reducer.add(row: rowBase, y: y, start: start, step: step)
                if code == SPNG_EOI.rawValue {
                    return
                }
            }
            throw ImageError.undecodable(.png, "more rows than the header declares")
        }
        return Image.make(width: reducer.size.width, height: reducer.size.height, pixelFormat: plan.pixelFormat, format: .png) {
            reducer.write(into: $0)
        }
    }

    /// Shrinks an image inflated by libdeflate: each unfiltered row (or pass
    /// row) goes into the reducer as it is unfiltered, through one reused
    /// full-width row when the stored samples need converting.
    ///
    /// - Returns: `nil` for a damaged row; the caller decodes with libspng.
    private static func shrink(_ inflated: inout PNGInflatedImage, plan: PNGDecodePlan, factor: Int, linear: Bool) -> Image? {
        let converter = inflated.converter
        var scratch = [UInt8](repeating: 0, count: plan.rowBytes)
        if plan.isInterlaced {
            var reducer = ScatteredBoxReducer(sourceWidth: plan.width, sourceHeight: plan.height, factor: factor, pixelFormat: plan.pixelFormat, linear: linear)
            let complete = scratch.withUnsafeMutableBufferPointer { scratch in
                guard let row = scratch.baseAddress else { return false }
                return inflated.forEachRow { stored, y, pass in
                    guard converter.convert(stored, pass: pass, into: row) else { return false }
                    reducer.add(row: row, y: y, start: pass.columnStart, step: pass.columnStep)
                    return true
                }
            }
            guard complete else { return nil }
            return Image.make(width: reducer.size.width, height: reducer.size.height, pixelFormat: plan.pixelFormat, format: .png) {
                reducer.write(into: $0)
            }
        }
        var reducer = BoxReducer(sourceWidth: plan.width, sourceHeight: plan.height, factor: factor, pixelFormat: plan.pixelFormat, linear: linear)
        var complete = false
        let image = Image.make(width: reducer.size.width, height: reducer.size.height, pixelFormat: plan.pixelFormat, format: .png) { output in
            complete = scratch.withUnsafeMutableBufferPointer { scratch in
                guard let row = scratch.baseAddress else { return false }
                return inflated.forEachRow { stored, _, pass in
                    if converter.isIdentity {
                        reducer.add(row: stored, output: output)
                    } else {
                        guard converter.convert(stored, pass: pass, into: row) else { return false }
                        reducer.add(row: row, output: output)
                    }
                    return true
                }
            }
        }
        return complete ? image : nil
    }
}
