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
    /// RGBA of the current frame's palette; alpha 0 marks the transparent entry.
    private var colors = [UInt8](repeating: 0, count: 256 * 4)
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
            let base = index * 4
            if index * 3 + 2 < frame.palette.count {
                colors[base] = frame.palette[index * 3]
                colors[base + 1] = frame.palette[index * 3 + 1]
                colors[base + 2] = frame.palette[index * 3 + 2]
            } else {
                // Past the table: opaque black, as the still decoder draws it.
                colors[base] = 0; colors[base + 1] = 0; colors[base + 2] = 0
            }
            colors[base + 3] = index == frame.transparentIndex ? 0 : 255
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
        let start = (canvasY * width + rowOffsetX) * 4
        colors.withUnsafeBufferPointer { colors in
            canvas.withUnsafeMutableBufferPointer { canvas in
                for x in 0..<count {
                    let color = Int(indices[x]) * 4
                    guard colors[color + 3] != 0 else { continue }
                    let out = start + x * 4
                    canvas[out] = colors[color]
                    canvas[out + 1] = colors[color + 1]
                    canvas[out + 2] = colors[color + 2]
                    canvas[out + 3] = 255
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
