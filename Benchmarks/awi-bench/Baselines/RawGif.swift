import CGif
import Foundation

/// Direct giflib calls: a synthetic animation encoder (`EGif*`), and the
/// baseline the library's GIF animation decoder is measured against —
/// `DGifSlurp` from memory, then each frame composited onto an RGBA canvas
/// (disposal 0–3, transparency, clipping) and copied out as that frame.
/// Nothing here goes through the library.
enum RawGif {
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ code: Int32, _ what: String) {
            description = "\(what): " + (GifErrorString(code).map { String(cString: $0) } ?? "giflib error \(code)")
        }
    }

    /// An animation of `frames` frames on a `width`×`height` screen with a
    /// 256-colour palette (entry 0 transparent): each frame a half-size
    /// rectangle of a moving pattern, moving across the canvas, with
    /// disposal cycling through 1, 2 and 3.
    static func synthesize(width: Int, height: Int, frames: Int) throws -> Data {
        final class Sink { var data = Data() }
        let sink = Sink()
        let write: OutputFunc = { gif, bytes, count in
            guard let gif, let bytes, let user = gif.pointee.UserData else { return 0 }
            Unmanaged<Sink>.fromOpaque(user).takeUnretainedValue().data.append(bytes, count: Int(count))
            return count
        }
        var code: Int32 = 0
        guard let gif = EGifOpen(Unmanaged.passUnretained(sink).toOpaque(), write, &code) else { throw Failure(code, "EGifOpen") }
        var colors: [GifColorType] = []
        for index in 0..<256 {
            colors.append(GifColorType(Red: UInt8(index), Green: UInt8(255 - index), Blue: UInt8(index * 7 & 0xFF)))
        }
        let map = GifMakeMapObject(256, &colors)
        defer { GifFreeMapObject(map) }
        EGifSetGifVersion(gif, true)
        guard EGifPutScreenDesc(gif, Int32(width), Int32(height), 8, 0, map) == GIF_OK else { throw Failure(gif.pointee.Error, "EGifPutScreenDesc") }
        var netscape = Array("NETSCAPE2.0".utf8)
        var loop: [UInt8] = [1, 0, 0]
        EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE)
        EGifPutExtensionBlock(gif, 11, &netscape)
        EGifPutExtensionBlock(gif, 3, &loop)
        EGifPutExtensionTrailer(gif)
        let frameWidth = width / 2, frameHeight = height / 2
        var line = [UInt8](repeating: 0, count: frameWidth)
        for frame in 0..<frames {
            var control = GraphicsControlBlock(DisposalMode: Int32(1 + frame % 3), UserInputFlag: false, DelayTime: 4, TransparentColor: 0)
            var extensionBytes = [UInt8](repeating: 0, count: 4)
            let length = EGifGCBToExtension(&control, &extensionBytes)
            EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, Int32(length), &extensionBytes)
            let left = frame * 7 % (width - frameWidth), top = frame * 3 % (height - frameHeight)
            guard EGifPutImageDesc(gif, Int32(left), Int32(top), Int32(frameWidth), Int32(frameHeight), false, nil) == GIF_OK else {
                throw Failure(gif.pointee.Error, "EGifPutImageDesc")
            }
            for y in 0..<frameHeight {
                for x in 0..<frameWidth {
                    // Transparent holes in a diagonal pattern; the rest a gradient that moves.
                    line[x] = (x + y) % 11 == 0 ? 0 : UInt8(1 + (x / 4 + y / 4 + frame) % 255)
                }
                guard EGifPutLine(gif, &line, Int32(frameWidth)) == GIF_OK else { throw Failure(gif.pointee.Error, "EGifPutLine") }
            }
        }
        guard EGifCloseFile(gif, &code) == GIF_OK else { throw Failure(code, "EGifCloseFile") }
        return sink.data
    }

    /// Every frame of `data` composited, as RGBA canvases (the last one returned whole, for checking).
    @discardableResult
    static func decodeAllFrames(_ data: Data) throws -> [UInt8] {
        final class Source {
            let data: Data
            var offset = 0
            init(_ data: Data) { self.data = data }
        }
        let source = Source(data)
        let read: InputFunc = { gif, buffer, count in
            guard let gif, let buffer, let user = gif.pointee.UserData else { return 0 }
            let source = Unmanaged<Source>.fromOpaque(user).takeUnretainedValue()
            let available = min(Int(count), source.data.count - source.offset)
            guard available > 0 else { return 0 }
            source.data.withUnsafeBytes { UnsafeMutableRawPointer(buffer).copyMemory(from: $0.baseAddress! + source.offset, byteCount: available) }
            source.offset += available
            return Int32(available)
        }
        var code: Int32 = 0
        guard let gif = DGifOpen(Unmanaged.passUnretained(source).toOpaque(), read, &code) else { throw Failure(code, "DGifOpen") }
        defer { DGifCloseFile(gif, &code) }
        guard DGifSlurp(gif) == GIF_OK else { throw Failure(gif.pointee.Error, "DGifSlurp") }
        let width = Int(gif.pointee.SWidth), height = Int(gif.pointee.SHeight)
        var canvas = [UInt8](repeating: 0, count: width * height * 4)
        var saved: [UInt8]?
        var previous: (disposal: Int32, x: Int, y: Int, width: Int, height: Int)?
        var frame: [UInt8] = []
        for index in 0..<Int(gif.pointee.ImageCount) {
            let image = gif.pointee.SavedImages[index]
            var control = GraphicsControlBlock()
            DGifSavedExtensionToGCB(gif, Int32(index), &control)
            if let previous {
                if previous.disposal == 2 {
                    for y in previous.y..<(previous.y + previous.height) {
                        let start = (y * width + previous.x) * 4
                        canvas.withUnsafeMutableBufferPointer { canvas in
                            for index in start..<(start + previous.width * 4) { canvas[index] = 0 }
                        }
                    }
                } else if previous.disposal == 3, let saved {
                    canvas = saved
                }
            }
            saved = control.DisposalMode == 3 ? canvas : nil
            let descriptor = image.ImageDesc
            let left = Int(descriptor.Left), top = Int(descriptor.Top)
            let clippedWidth = max(0, min(Int(descriptor.Width), width - left)), clippedHeight = max(0, min(Int(descriptor.Height), height - top))
            guard let map = descriptor.ColorMap ?? gif.pointee.SColorMap, let colors = map.pointee.Colors else { throw Failure(0, "no colour map") }
            let colorCount = Int(map.pointee.ColorCount)
            let transparent = Int(control.TransparentColor)
            canvas.withUnsafeMutableBufferPointer { canvas in
                for y in 0..<clippedHeight {
                    let row = image.RasterBits + y * Int(descriptor.Width)
                    let out = ((top + y) * width + left) * 4
                    for x in 0..<clippedWidth {
                        let index = Int(row[x])
                        if index == transparent { continue }
                        let o = out + x * 4
                        if index < colorCount {
                            canvas[o] = colors[index].Red; canvas[o + 1] = colors[index].Green; canvas[o + 2] = colors[index].Blue
                        } else {
                            canvas[o] = 0; canvas[o + 1] = 0; canvas[o + 2] = 0
                        }
                        canvas[o + 3] = 255
                    }
                }
            }
            previous = (control.DisposalMode, left, top, clippedWidth, clippedHeight)
            // Each frame handed out as its own buffer, as the library's frames are.
            frame = canvas
            frame.withUnsafeMutableBufferPointer { _ in }
        }
        return frame
    }
}
