import CSpng

/// The layout of a PNG's image data once inflated: the filtered rows of the
/// image, or of each of its seven Adam7 passes, exactly as the PNG
/// specification lays them out.
///
/// Its ``inflatedBytes`` is the exact size of the whole zlib stream's
/// output, so an inflate buffer of that size holds every valid stream and a
/// stream that would produce more is refused by the inflater itself.
struct PNGRawLayout: Sendable, Equatable {
    /// One pass of the image (the whole image when not interlaced).
    struct Pass: Sendable, Equatable {
        /// First image row and row step of the pass.
        let rowStart: Int, rowStep: Int
        /// First image column and column step of the pass.
        let columnStart: Int, columnStep: Int
        /// Pixels per row and rows of the pass (either may be 0: an empty pass has no bytes at all).
        let width: Int, height: Int
        /// Bytes of one unfiltered row (without its filter-type byte).
        let rowBytes: Int

        /// Whether the pass holds any pixel.
        var isEmpty: Bool { width == 0 || height == 0 }
        /// Bytes of the pass in the inflated stream: rows with a filter byte each.
        var inflatedBytes: Int { isEmpty ? 0 : height * (1 + rowBytes) }
    }

    /// Start and step of rows and columns of the seven Adam7 passes (PNG specification, 8.2).
    static let adam7: [(rowStart: Int, rowStep: Int, columnStart: Int, columnStep: Int)] = [
        (0, 8, 0, 8), (0, 8, 4, 8), (4, 8, 0, 4), (0, 4, 2, 4), (2, 4, 0, 2), (0, 2, 1, 2), (1, 2, 0, 1),
    ]

    let width: Int
    let height: Int
    /// Bits per sample: 1, 2, 4, 8 or 16.
    let bitDepth: Int
    /// PNG colour type: 0 grey, 2 RGB, 3 palette, 4 grey + alpha, 6 RGBA.
    let colorType: Int
    /// Samples per pixel as stored (palette: 1 index).
    let samplesPerPixel: Int
    /// Bits of one stored pixel.
    var bitsPerPixel: Int { bitDepth * samplesPerPixel }
    /// The distance in bytes to the "left" byte for filtering: whole bytes
    /// per pixel, at least 1 (PNG specification, 9.2).
    var filterStride: Int { max(1, bitsPerPixel / 8) }
    /// The passes in stream order: one, or seven for Adam7.
    let passes: [Pass]
    /// Exact bytes of the inflated image data.
    let inflatedBytes: Int
    /// The longest row of any pass, in bytes (without its filter byte).
    let maximumRowBytes: Int

    /// The layout for a header, or `nil` for a colour type and depth the
    /// PNG specification does not allow (libspng refuses those before).
    init?(ihdr: spng_ihdr) {
        let (width, height) = (Int(ihdr.width), Int(ihdr.height))
        (self.width, self.height) = (width, height)
        bitDepth = Int(ihdr.bit_depth)
        colorType = Int(ihdr.color_type)
        switch (colorType, bitDepth) {
        case (0, 1), (0, 2), (0, 4), (0, 8), (0, 16): samplesPerPixel = 1
        case (3, 1), (3, 2), (3, 4), (3, 8): samplesPerPixel = 1
        case (2, 8), (2, 16): samplesPerPixel = 3
        case (4, 8), (4, 16): samplesPerPixel = 2
        case (6, 8), (6, 16): samplesPerPixel = 4
        default: return nil
        }
        guard width > 0, height > 0 else { return nil }
        let bits = bitDepth * samplesPerPixel
        func pass(_ rowStart: Int, _ rowStep: Int, _ columnStart: Int, _ columnStep: Int) -> Pass {
            let columns = width > columnStart ? (width - columnStart + columnStep - 1) / columnStep : 0
            let rows = height > rowStart ? (height - rowStart + rowStep - 1) / rowStep : 0
            return Pass(
                rowStart: rowStart, rowStep: rowStep, columnStart: columnStart, columnStep: columnStep,
                width: columns, height: rows, rowBytes: (columns * bits + 7) / 8
            )
        }
        let passes = ihdr.interlace_method == 0
            ? [pass(0, 1, 0, 1)] : Self.adam7.map { pass($0.rowStart, $0.rowStep, $0.columnStart, $0.columnStep) }
        self.passes = passes
        inflatedBytes = passes.reduce(0) { $0 + $1.inflatedBytes }
        maximumRowBytes = passes.map(\.rowBytes).max() ?? 0
    }
}
