import AsyncWebImage
/// The logical screen with a GIF's first frame on it, resampled to a
/// thumbnail while the frame's rows are decoded, so that the full-size
/// canvas never exists.
///
/// Each canvas row is painted as ``GIFCanvas`` paints it (transparent black
/// outside the frame, the frame's colours through ``GIFColorTable``) into
/// one reused row and handed to a ``StreamingResampler``: the result is
/// pixel for pixel the full canvas resampled by ``ImageResampler``, and the
/// memory is the thumbnail plus a few rows. An interlaced frame delivers its
/// rows in four passes, out of order; its palette indices are kept (one
/// byte a pixel, a quarter of the RGBA canvas) and resampled at the end.
struct GIFResamplingCanvas {
    let size: PixelSize
    let target: PixelSize
    /// The thumbnail filter and light come from here.
    private let options: ImageDecodingOptions
    private var frame: GIFFrame?
    private var colors: GIFColorTable?
    private var pixelFormat = PixelFormat.rgba8
    private var resampler: StreamingResampler
    private var output: [UInt8] = []
    /// One canvas row: the frame's columns are repainted for each frame row,
    /// the columns outside it stay transparent black.
    private var row: [UInt8] = []
    /// A canvas row outside the frame: all transparent black.
    private var blank: [UInt8] = []
    /// The part of the frame on the screen.
    private var visible = GIFFrame.Rect(x: 0, y: 0, width: 0, height: 0)
    /// Interlaced frames only: the visible part's palette indices.
    private var indices: [UInt8] = []
    /// The next canvas row the resampler expects.
    private var nextRow = 0

    /// A canvas for a `size` screen resampled to `target`, or `nil` when the
    /// streaming resampler cannot do it (the caller decodes in full then).
    init?(size: PixelSize, target: PixelSize, options: ImageDecodingOptions = .init()) {
        let resampler = options.thumbnailResampler(sourceWidth: size.width, sourceHeight: size.height, to: target, pixelFormat: .rgba8)
        guard let resampler else { return nil }
        self.resampler = resampler
        self.options = options
        self.size = size
        self.target = target
    }

    /// Picks the pixel format as ``GIFCanvas`` does and allocates the
    /// thumbnail and the rows (the caller has checked the screen and the
    /// frame against the pixel limit).
    ///
    /// - Throws: ``ImageError/undecodable(_:_:)`` if the resampler cannot be built.
    mutating func begin(_ frame: GIFFrame) throws(ImageError) {
        pixelFormat = GIFColorTable.pixelFormat(for: frame, on: size)
        if resampler.pixelFormat != pixelFormat {
            guard let resampler = options.thumbnailResampler(
                sourceWidth: size.width, sourceHeight: size.height, to: target, pixelFormat: pixelFormat
            ) else { throw .undecodable(.gif, "no resampler for \(size) → \(target)") }
            self.resampler = resampler
        }
        let rowBytes = size.width * pixelFormat.bytesPerPixel
        output = [UInt8](repeating: 0, count: target.width * target.height * pixelFormat.bytesPerPixel)
        row = [UInt8](repeating: 0, count: rowBytes)
        blank = [UInt8](repeating: 0, count: rowBytes)
        let x = min(frame.rect.x, size.width), y = min(frame.rect.y, size.height)
        visible = GIFFrame.Rect(x: x, y: y, width: min(frame.rect.width, size.width - x), height: min(frame.rect.height, size.height - y))
        if frame.isInterlaced { indices = [UInt8](repeating: 0, count: visible.width * visible.height) }
        colors = GIFColorTable(frame)
        self.frame = frame
    }

    /// Takes frame row `y` (frame-relative): resamples it now, with the
    /// transparent rows above it, or keeps its indices when interlaced.
    mutating func draw(row y: Int, indices source: UnsafeBufferPointer<UInt8>) {
        guard let frame, y < visible.height, let base = source.baseAddress else { return }
        let count = min(source.count, visible.width)
        if frame.isInterlaced {
            indices.withUnsafeMutableBufferPointer { plane in
                guard let plane = plane.baseAddress else { return }
                (plane + y * visible.width).update(from: base, count: count)
            }
        } else {
            resampleBlankRows(upTo: visible.y + y)
            resample(frameRow: base, count: count)
        }
    }

    /// The thumbnail, once the frame's rows are in (rows below the frame are
    /// transparent), or `nil` before ``begin(_:)``.
    mutating func image() -> Image? {
        guard let frame else { return nil }
        if frame.isInterlaced {
            var plane = [UInt8]()
            swap(&plane, &indices)
            plane.withUnsafeBufferPointer { plane in
                guard let base = plane.baseAddress else { return }
                for y in 0..<visible.height {
                    resampleBlankRows(upTo: visible.y + y)
                    resample(frameRow: base + y * visible.width, count: visible.width)
                }
            }
        }
        resampleBlankRows(upTo: size.height)
        return Image(
            width: target.width, height: target.height, pixelFormat: pixelFormat,
            bytesPerRow: target.width * pixelFormat.bytesPerPixel,
            orientation: .up, format: .gif, storage: PixelStorage(bytes: output)
        )
    }

    /// Paints the next canvas row from `count` palette indices of the frame and resamples it.
    private mutating func resample(frameRow: UnsafePointer<UInt8>, count: Int) {
        guard let colors, nextRow < size.height else { return }
        let bytes = pixelFormat.bytesPerPixel
        let start = visible.x * bytes
        row.withUnsafeMutableBufferPointer { row in
            guard let base = row.baseAddress else { return }
            colors.paint(frameRow, count: count, into: base + start, bytesPerPixel: bytes)
            output.withUnsafeMutableBytes { output in resampler.add(row: base, output: output) }
        }
        nextRow += 1
    }

    /// Resamples transparent rows until `end` (exclusive) is the next canvas row.
    private mutating func resampleBlankRows(upTo end: Int) {
        guard nextRow < end else { return }
        blank.withUnsafeBufferPointer { blank in
            guard let base = blank.baseAddress else { return }
            output.withUnsafeMutableBytes { output in
                while nextRow < end {
                    resampler.add(row: base, output: output)
                    nextRow += 1
                }
            }
        }
    }
}
