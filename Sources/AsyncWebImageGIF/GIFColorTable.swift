import AsyncWebImage
/// A still GIF frame's palette as 256 RGBA entries, and the one way its
/// index rows become pixels, shared by the full-size canvas and the
/// thumbnail that never holds one (so both draw the same bytes).
///
/// Indices past the table are opaque black; the transparent entry is
/// transparent black whatever colour the table gives it.
struct GIFColorTable {
    private var colors: [UInt8]

    init(_ frame: GIFFrame) {
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
            colors[transparent * 4] = 0
            colors[transparent * 4 + 1] = 0
            colors[transparent * 4 + 2] = 0
        }
    }

    /// The canvas format for `frame` on a `screen`: RGB when the frame covers
    /// the whole screen and has no transparent entry, RGBA otherwise.
    static func pixelFormat(for frame: GIFFrame, on screen: PixelSize) -> PixelFormat {
        let rect = frame.rect
        let covers = rect.x == 0 && rect.y == 0 && rect.width >= screen.width && rect.height >= screen.height
        return covers && frame.transparentIndex == nil ? .rgb8 : .rgba8
    }

    /// Writes the colours of the first `count` of `indices` to `pixels`, 3
    /// (RGB) or 4 (RGBA) bytes each.
    func paint(_ indices: UnsafePointer<UInt8>, count: Int, into pixels: UnsafeMutablePointer<UInt8>, bytesPerPixel: Int) {
        colors.withUnsafeBufferPointer { colors in
            guard let colors = colors.baseAddress else { return }
            // One loop per layout, so that each has a constant stride.
            if bytesPerPixel == 4 {
                for x in 0..<count {
                    let color = colors + Int(indices[x]) * 4
                    let out = pixels + x * 4
                    out[0] = color[0]
                    out[1] = color[1]
                    out[2] = color[2]
                    out[3] = color[3]
                }
            } else {
                for x in 0..<count {
                    let color = colors + Int(indices[x]) * 4
                    let out = pixels + x * 3
                    out[0] = color[0]
                    out[1] = color[1]
                    out[2] = color[2]
                }
            }
        }
    }
}
