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
    /// Palette as RGBA, 256 entries, index past the table opaque black.
    private var colors = [UInt8]()

    init(size: PixelSize) {
        self.size = size
    }

    /// Allocates the canvas for `frame`: RGBA when anything will be
    /// transparent, RGB otherwise; all transparent black to start.
    mutating func begin(_ frame: GIFFrame) {
        let rect = frame.rect
        let covers = rect.x == 0 && rect.y == 0 && rect.width >= size.width && rect.height >= size.height
        pixelFormat = covers && frame.transparentIndex == nil ? .rgb8 : .rgba8
        pixels = [UInt8](repeating: 0, count: size.width * size.height * pixelFormat.bytesPerPixel)
        colors = [UInt8](repeating: 0, count: 256 * 4)
        for index in 0..<256 {
            if index * 3 + 2 < frame.palette.count {
                colors[index * 4] = frame.palette[index * 3]
                colors[index * 4 + 1] = frame.palette[index * 3 + 1]
                colors[index * 4 + 2] = frame.palette[index * 3 + 2]
            }
            colors[index * 4 + 3] = index == frame.transparentIndex ? 0 : 255
        }
        if let transparent = frame.transparentIndex {
            // Transparent black, whatever colour the table gives the entry.
            colors[transparent * 4] = 0
            colors[transparent * 4 + 1] = 0
            colors[transparent * 4 + 2] = 0
        }
        self.frame = frame
    }

    /// Paints frame row `y` (frame-relative) onto the canvas, cut to the screen.
    mutating func draw(row y: Int, indices: UnsafeBufferPointer<UInt8>) {
        guard let rect = frame?.rect else { return }
        let canvasY = rect.y + y
        guard canvasY < size.height, rect.x < size.width else { return }
        let count = min(indices.count, size.width - rect.x)
        let bytes = pixelFormat.bytesPerPixel
        let rowStart = (canvasY * size.width + rect.x) * bytes
        colors.withUnsafeBufferPointer { colors in
            pixels.withUnsafeMutableBufferPointer { pixels in
                for x in 0..<count {
                    let color = Int(indices[x]) * 4
                    let out = rowStart + x * bytes
                    pixels[out] = colors[color]
                    pixels[out + 1] = colors[color + 1]
                    pixels[out + 2] = colors[color + 2]
                    if bytes == 4 { pixels[out + 3] = colors[color + 3] }
                }
            }
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
