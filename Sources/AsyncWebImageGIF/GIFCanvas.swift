import AsyncWebImage
/// The logical screen a GIF frame is drawn on, as it is drawn.
///
/// ``begin(_:)`` picks the pixel format and allocates the canvas (the
/// caller has checked its size against the limit); ``draw(row:indices:)``
/// paints one row of the frame through its palette.
struct GIFCanvas {
    let size: PixelSize
    private var pixels: [UInt8] = []
    private var pixelFormat = PixelFormat.rgb8
    private var frame: GIFFrame?
    private var colors: GIFColorTable?

    init(size: PixelSize) {
        self.size = size
    }

    /// Allocates the canvas for `frame`: RGBA when anything will be
    /// transparent, RGB otherwise; all transparent black to start.
    mutating func begin(_ frame: GIFFrame) {
        pixelFormat = GIFColorTable.pixelFormat(for: frame, on: size)
        pixels = [UInt8](repeating: 0, count: size.width * size.height * pixelFormat.bytesPerPixel)
        colors = GIFColorTable(frame)
        self.frame = frame
    }

    /// Paints frame row `y` (frame-relative) onto the canvas, cut to the screen.
    mutating func draw(row y: Int, indices: UnsafeBufferPointer<UInt8>) {
        guard let rect = frame?.rect, let colors, let source = indices.baseAddress else { return }
        let canvasY = rect.y + y
        guard canvasY < size.height, rect.x < size.width else { return }
        let count = min(indices.count, size.width - rect.x)
        let bytes = pixelFormat.bytesPerPixel
        let rowStart = (canvasY * size.width + rect.x) * bytes
        pixels.withUnsafeMutableBufferPointer { pixels in
            guard let base = pixels.baseAddress else { return }
            colors.paint(source, count: count, into: base + rowStart, bytesPerPixel: bytes)
        }
    }

    /// The canvas as an image (sharing its bytes), or `nil` before ``begin(_:)``.
    func image() -> Image? {
        guard frame != nil else { return nil }
        return Image(
            width: size.width, height: size.height, pixelFormat: pixelFormat,
            bytesPerRow: size.width * pixelFormat.bytesPerPixel,
            orientation: .up, format: .gif, storage: PixelStorage(bytes: pixels)
        )
    }
}
