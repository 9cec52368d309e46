import CDeflate
import CSpng

/// A PNG's whole image data inflated in one libdeflate call, then unfiltered
/// row by row (in place) and converted to the plan's pixels.
///
/// libspng inflates through zlib a few rows at a time and unfilters each row
/// through its general-purpose row machinery; for a complete file (every
/// cached or downloaded image) one call of libdeflate — two to three times
/// zlib's speed, no per-call overhead — and a direct unfilter do the same
/// work in far less time. libspng still parses every chunk before the image
/// data and supplies PLTE and tRNS, so the semantics are libspng's.
///
/// The inflate buffer has exactly the size the header implies
/// (``PNGRawLayout/inflatedBytes``): a stream that would inflate to more
/// stops there (a bomb cannot grow it), one that inflates to less is refused.
///
/// Used when (see ``init(png:context:plan:maximumInflatedBytes:)``): the file
/// is whole (``PNGImageDataStream``), the inflated data fits
/// `maximumInflatedBytes`, and libdeflate inflates it to exactly the
/// expected size with a correct Adler-32. Otherwise, and when a row has an
/// unknown filter type or a palette index past PLTE, the caller decodes with
/// libspng as before (so a damaged file fails with libspng's message).
///
/// Thumbnails of larger images (`streaming`, over
/// ``maximumWholeInflateBytesForReduction``) are inflated a row at a time
/// with ISA-L instead (``PNGImageDataInflater``), into two reused rows: a
/// reduced decode then never holds the image's full-size data.
struct PNGInflatedImage {
    /// The largest inflate buffer this path allocates: 128 MiB (a 32 MP
    /// RGBA or 42 MP RGB image). Larger images decode row by row with
    /// libspng, which holds one row of image data at a time.
    static let maximumInflatedBytes = 128 << 20

    /// The largest image data a reduced decode (a thumbnail) inflates whole:
    /// 4 MiB, a 1 MP RGBA image. Above it, rows are inflated one at a time.
    static let maximumWholeInflateBytesForReduction = 4 << 20

    let layout: PNGRawLayout
    let converter: PNGSampleConverter
    /// The inflated stream: rows of each pass, each a filter byte then its
    /// bytes (empty when streaming).
    private var data: [UInt8]
    /// The IDAT payloads and the file, when rows are inflated as they are visited.
    private let streamed: (stream: PNGImageDataStream, png: UnsafeRawBufferPointer)?
    /// Whether rows are inflated as they are visited (no whole inflate buffer).
    var isStreaming: Bool { streamed != nil }

    /// Inflates the image data of `png`, or returns `nil` when this path
    /// does not apply (see the type's discussion). libspng's `context` must
    /// not have started decoding the image; it is only asked for PLTE and tRNS.
    ///
    /// With `reduced` (a thumbnail: rows go to a reducer, never into a
    /// full-size image) and image data over ``maximumWholeInflateBytesForReduction``,
    /// nothing is inflated yet: ``forEachRow(_:)`` inflates each row as it
    /// visits it (`maximumInflatedBytes` does not apply: two rows are held),
    /// and `png` must outlive this value.
    init?(png: UnsafeRawBufferPointer, context: SpngContext, plan: PNGDecodePlan, maximumInflatedBytes: Int, reduced: Bool = false) {
        var ihdr = spng_ihdr()
        guard spng_get_ihdr(context.raw, &ihdr) == 0, let layout = PNGRawLayout(ihdr: ihdr), layout.inflatedBytes > 0 else { return nil }
        let streaming = reduced && layout.inflatedBytes > Self.maximumWholeInflateBytesForReduction
        guard streaming || layout.inflatedBytes <= maximumInflatedBytes else { return nil }
        var trns = spng_trns()
        let trnsCode = spng_get_trns(context.raw, &trns)
        guard trnsCode == 0 || trnsCode == SPNG_ECHUNKAVAIL.rawValue else { return nil }
        var plte = spng_plte()
        let hasPalette = layout.colorType == 3 && spng_get_plte(context.raw, &plte) == 0
        guard let converter = PNGSampleConverter(
            layout: layout, plan: plan, transparency: trnsCode == 0 ? trns : nil, palette: hasPalette ? plte : nil
        ), let stream = PNGImageDataStream(png) else { return nil }
        if streaming {
            self.layout = layout
            self.converter = converter
            self.data = []
            self.streamed = (stream, png)
            return
        }
        guard let decompressor = libdeflate_alloc_decompressor() else { return nil }
        defer { libdeflate_free_decompressor(decompressor) }
        var result = LIBDEFLATE_BAD_DATA
        let count = layout.inflatedBytes
        let data = stream.withContiguousBytes(in: png) { compressed in
            [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                // No `actual_out` pointer: anything but exactly `count` bytes is an error.
                result = libdeflate_zlib_decompress(decompressor, compressed.baseAddress, compressed.count, buffer.baseAddress, count, nil)
                initialized = count
            }
        }
        guard result == LIBDEFLATE_SUCCESS else { return nil }
        self.layout = layout
        self.converter = converter
        self.data = data
        self.streamed = nil
    }

    /// Unfilters every row in place, pass by pass, and calls `body` with each
    /// unfiltered row of stored samples, its image row and its pass.
    ///
    /// - Returns: `false` when a row has an unknown filter type or `body`
    ///   returned `false` (nothing after it is visited).
    mutating func forEachRow(_ body: (_ row: UnsafePointer<UInt8>, _ y: Int, _ pass: PNGRawLayout.Pass) -> Bool) -> Bool {
        let layout = layout
        if let streamed {
            return Self.forEachStreamedRow(layout: layout, stream: streamed.stream, png: streamed.png, body)
        }
        return data.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return false }
            var offset = 0
            for pass in layout.passes where !pass.isEmpty {
                var previous: UnsafePointer<UInt8>?
                for index in 0..<pass.height {
                    let row = base + offset + 1
                    guard PNGUnfilter.unfilter(
                        filter: base[offset], source: row, destination: row, previous: previous,
                        count: pass.rowBytes, stride: layout.filterStride
                    ) else { return false }
                    guard body(row, pass.rowStart + index * pass.rowStep, pass) else { return false }
                    previous = UnsafePointer(row)
                    offset += 1 + pass.rowBytes
                }
            }
            return true
        }
    }

    /// ``forEachRow(_:)`` with ISA-L (``PNGImageDataInflater``): each row
    /// inflated into one of two reused rows, unfiltered against the other.
    /// The stream must end exactly after the last row, with a matching
    /// Adler-32 (checked by ISA-L as it reads the trailer).
    private static func forEachStreamedRow(
        layout: PNGRawLayout, stream: PNGImageDataStream, png: UnsafeRawBufferPointer,
        _ body: (_ row: UnsafePointer<UInt8>, _ y: Int, _ pass: PNGRawLayout.Pass) -> Bool
    ) -> Bool {
        var inflater = PNGImageDataInflater(stream: stream, png: png)
        let rowCapacity = 1 + layout.maximumRowBytes
        var rows = [UInt8](repeating: 0, count: 2 * rowCapacity)
        let complete = rows.withUnsafeMutableBufferPointer { rows -> Bool in
            guard let rowsBase = rows.baseAddress else { return false }
            var (current, previous) = (rowsBase, rowsBase + rowCapacity)
            for pass in layout.passes where !pass.isEmpty {
                for index in 0..<pass.height {
                    guard inflater.read(into: current, count: 1 + pass.rowBytes), PNGUnfilter.unfilter(
                        filter: current[0], source: current + 1, destination: current + 1,
                        previous: index == 0 ? nil : UnsafePointer(previous + 1), count: pass.rowBytes, stride: layout.filterStride
                    ), body(current + 1, pass.rowStart + index * pass.rowStep, pass) else { return false }
                    swap(&current, &previous)
                }
            }
            return true
        }
        return complete && inflater.finish()
    }

    /// Writes the whole image into `pixels` (tightly packed rows of `plan.rowBytes`).
    ///
    /// - Returns: `false` for a damaged row (see ``forEachRow(_:)``); the
    ///   pixels are then incomplete and the caller decodes again with libspng.
    mutating func decode(into pixels: UnsafeMutableRawBufferPointer, plan: PNGDecodePlan) -> Bool {
        guard let output = pixels.baseAddress?.assumingMemoryBound(to: UInt8.self), pixels.count >= plan.rowBytes * plan.height else {
            return false
        }
        let rowBytes = plan.rowBytes
        if converter.isIdentity, layout.passes.count == 1, streamed == nil {
            // Stored rows are the output rows: unfilter straight into the image.
            let (stride, height) = (layout.filterStride, layout.height)
            return data.withUnsafeBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return false }
                for y in 0..<height {
                    let source = base + y * (1 + rowBytes)
                    let destination = output + y * rowBytes
                    guard PNGUnfilter.unfilter(
                        filter: source[0], source: source + 1, destination: destination,
                        previous: y == 0 ? nil : UnsafePointer(destination - rowBytes), count: rowBytes, stride: stride
                    ) else { return false }
                }
                return true
            }
        }
        let converter = converter
        return forEachRow { row, y, pass in
            converter.convert(row, pass: pass, into: output + y * rowBytes)
        }
    }
}
