import AsyncWebImage
/// The canvas of a GIF animation as a viewer keeps it between frames: RGBA,
/// transparent black to start, each frame drawn over what the previous
/// frame's disposal left.
///
/// Disposal (the previous frame's, applied before the next is drawn):
/// 0 and 1 (and the undefined 4–7) keep the frame; 2 clears its rectangle to
/// transparent black (the background browsers use); 3 restores the canvas
/// as it was before that frame. A frame's transparent palette entry leaves
/// the canvas below unchanged. Parts of a frame outside the canvas are cut off.
final class GIFCompositor {
    let width: Int
    let height: Int
    private(set) var canvas: [UInt8]
    /// The canvas before the current frame, kept only when its disposal is 3.
    private var saved: [UInt8]?
    /// The frame drawn last and the part of the canvas it covers.
    private var last: (disposal: Int, rect: GIFFrame.Rect)?
    /// The current frame's palette as RGBA pixels in memory order (one
    /// 4-byte store each); the transparent entry is 0, every other one has
    /// alpha 255, so 0 means "leave the canvas".
    private var colors = [UInt32](repeating: 0, count: 256)
    private var rect = GIFFrame.Rect(x: 0, y: 0, width: 0, height: 0)

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        canvas = [UInt8](repeating: 0, count: width * height * 4)
    }

    /// Back to the empty canvas of frame 0.
    func reset() {
        canvas.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        saved = nil
        last = nil
    }

    /// Applies the previous frame's disposal, then prepares to draw `frame`.
    func begin(_ frame: GIFFrame) {
        if let last {
            switch last.disposal {
            case 2: clear(last.rect)
            case 3: if let saved { canvas = saved }
            default: break
            }
        }
        saved = frame.disposal == 3 ? canvas : nil
        rect = clipped(frame.rect)
        last = (frame.disposal, rect)
        for index in 0..<256 {
            var rgba: UInt32 = 0xFF << 24
            if index * 3 + 2 < frame.palette.count {
                rgba |= UInt32(frame.palette[index * 3]) | UInt32(frame.palette[index * 3 + 1]) << 8 | UInt32(frame.palette[index * 3 + 2]) << 16
            }
            // Past the table: opaque black, as the still decoder draws it.
            colors[index] = index == frame.transparentIndex ? 0 : rgba.littleEndian
        }
        rowOffsetX = frame.rect.x
        rowOffsetY = frame.rect.y
    }

    private var rowOffsetX = 0
    private var rowOffsetY = 0

    /// Draws frame row `y` (frame-relative): opaque entries replace the
    /// canvas, the transparent entry leaves it; cut to the canvas.
    func draw(row y: Int, indices: UnsafeBufferPointer<UInt8>) {
        let canvasY = rowOffsetY + y
        guard canvasY < height, rowOffsetX < width else { return }
        let count = min(indices.count, width - rowOffsetX)
        let start = canvasY * width + rowOffsetX
        colors.withUnsafeBufferPointer { colors in
            canvas.withUnsafeMutableBytes { bytes in
                // Raw stores keep the bytes' bound type; the array's storage is
                // aligned for any scalar and every offset is a multiple of 4.
                for x in 0..<count {
                    let color = colors[Int(indices[x])]
                    if color != 0 { bytes.storeBytes(of: color, toByteOffset: (start + x) * 4, as: UInt32.self) }
                }
            }
        }
    }

    /// The canvas now, as an image sharing its bytes (the next change copies them).
    func image() -> Image {
        Image(
            width: width, height: height, pixelFormat: .rgba8, bytesPerRow: width * 4,
            orientation: .up, format: .gif, storage: PixelStorage(bytes: canvas)
        )
    }

    private func clipped(_ rect: GIFFrame.Rect) -> GIFFrame.Rect {
        let x = min(rect.x, width), y = min(rect.y, height)
        return GIFFrame.Rect(x: x, y: y, width: min(rect.width, width - x), height: min(rect.height, height - y))
    }

    private func clear(_ rect: GIFFrame.Rect) {
        guard rect.width > 0, rect.height > 0 else { return }
        let width = width
        canvas.withUnsafeMutableBufferPointer { canvas in
            for row in rect.y..<(rect.y + rect.height) {
                let start = (row * width + rect.x) * 4
                UnsafeMutableBufferPointer(rebasing: canvas[start..<(start + rect.width * 4)]).update(repeating: 0)
            }
        }
    }
}
