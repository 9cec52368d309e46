import CGif
import Foundation
import AsyncWebImage

/// Walks the records of a GIF with giflib's low-level API, reading from
/// memory: the logical screen, then one frame after another.
///
/// The still decoder reads the first frame only; an animation decoder can
/// call ``nextFrame(maxPixelCount:row:)`` until it returns `nil`, keeping
/// the graphic control of each frame (delay, disposal, transparency).
final class GIFFrameReader {
    /// The logical screen (canvas) every frame is drawn on, as declared.
    let screenSize: PixelSize
    private let gif: UnsafeMutablePointer<GifFileType>
    private let source: GIFByteSource
    /// What a frame with no colour table (local or global) is drawn with.
    private let missingColorTable: GIFCoder.MissingColorTablePolicy

    /// Opens `data` and reads the screen descriptor and global colour table.
    ///
    /// - Throws: ``ImageError/undecodable(_:_:)`` with giflib's message.
    init(_ data: Data, missingColorTable: GIFCoder.MissingColorTablePolicy = .grayLevels) throws(ImageError) {
        self.missingColorTable = missingColorTable
        guard !data.isEmpty else { throw .undecodable(.gif, "no data") }
        let source = GIFByteSource(data)
        var code: Int32 = 0
        guard let gif = DGifOpen(Unmanaged.passUnretained(source).toOpaque(), GIFByteSource.read, &code) else {
            throw Self.error(code, while: "reading the screen descriptor")
        }
        self.source = source
        self.gif = gif
        screenSize = PixelSize(width: Int(gif.pointee.SWidth), height: Int(gif.pointee.SHeight))
    }

    deinit {
        var code: Int32 = 0
        DGifCloseFile(gif, &code)
    }

    /// Reads up to the next image descriptor, hands its description to
    /// `begin`, then its rows to `row`, in display order (interlaced rows
    /// placed where they belong); `nil` after the trailer.
    ///
    /// - Parameters:
    ///   - maxPixelCount: frames declaring more pixels fail before any is decoded.
    ///   - allowsEmpty: whether a frame of no pixels is read (its data
    ///     skipped, `begin` called, no row) instead of failing, as an
    ///     animation shows it: a frame that only waits.
    ///   - begin: called once the frame's place, palette and transparency are known, before its rows.
    ///   - row: called with the frame-relative row index and the row's palette indices.
    /// - Throws: ``ImageError/tooLarge(_:limit:actual:)`` for a frame over
    ///   the limit; ``ImageError/undecodable(_:_:)`` for anything giflib rejects
    ///   (including data that ends too soon).
    func nextFrame(
        maxPixelCount: Int,
        allowsEmpty: Bool = false,
        begin: (GIFFrame) throws(ImageError) -> Void,
        row: (Int, UnsafeBufferPointer<UInt8>) -> Void
    ) throws(ImageError) -> GIFFrame? {
        var control: GraphicsControlBlock?
        while true {
            var type = UNDEFINED_RECORD_TYPE
            guard DGifGetRecordType(gif, &type) == GIF_OK else { throw lastError("reading a record type") }
            switch type {
            case EXTENSION_RECORD_TYPE:
                control = try readExtension() ?? control
            case IMAGE_DESC_RECORD_TYPE:
                return try readImage(control: control, maxPixelCount: maxPixelCount, allowsEmpty: allowsEmpty, begin: begin, row: row)
            case TERMINATE_RECORD_TYPE:
                return nil
            default:
                throw .undecodable(.gif, "unexpected record type \(type.rawValue)")
            }
        }
    }

    /// Skips an extension; returns its graphic control block if it is one.
    private func readExtension() throws(ImageError) -> GraphicsControlBlock? {
        var function: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        guard DGifGetExtension(gif, &function, &block) == GIF_OK else { throw lastError("reading an extension") }
        var control: GraphicsControlBlock?
        if function == GRAPHICS_EXT_FUNC_CODE, let block, block[0] >= 4 {
            var parsed = GraphicsControlBlock()
            if DGifExtensionToGCB(Int(block[0]), block + 1, &parsed) == GIF_OK { control = parsed }
        }
        while block != nil {
            guard DGifGetExtensionNext(gif, &block) == GIF_OK else { throw lastError("reading an extension block") }
        }
        return control
    }

    /// Reads one image descriptor and all of its rows.
    private func readImage(
        control: GraphicsControlBlock?,
        maxPixelCount: Int,
        allowsEmpty: Bool,
        begin: (GIFFrame) throws(ImageError) -> Void,
        row: (Int, UnsafeBufferPointer<UInt8>) -> Void
    ) throws(ImageError) -> GIFFrame {
        // giflib refuses a minimum code size over 8 after reading the whole
        // descriptor (and that byte); such frames are decoded here instead.
        var wideCodeSize: Int?
        if DGifGetImageDesc(gif) != GIF_OK {
            guard gif.pointee.Error == D_GIF_ERR_READ_FAILED, let byte = source.lastByteRead,
                  GIFWideCodeDecoder.codeSizes.contains(Int(byte))
            else { throw lastError("reading an image descriptor") }
            wideCodeSize = Int(byte)
        }
        let descriptor = gif.pointee.Image
        let rect = GIFFrame.Rect(
            x: Int(descriptor.Left), y: Int(descriptor.Top),
            width: Int(descriptor.Width), height: Int(descriptor.Height)
        )
        guard rect.width > 0, rect.height > 0 else {
            guard allowsEmpty else { throw .undecodable(.gif, "a frame of \(rect.width)×\(rect.height) pixels") }
            try skipImageData()
            let frame = GIFFrame(
                rect: rect, palette: [], transparentIndex: nil,
                delayCentiseconds: control.map { Int($0.DelayTime) } ?? 0, disposal: control.map { Int($0.DisposalMode) } ?? 0
            )
            try begin(frame)
            return frame
        }
        // Bounds the LZW work, which is per pixel whatever the canvas keeps.
        let pixels = PixelSize(width: rect.width, height: rect.height).pixelCount
        guard pixels <= maxPixelCount else {
            throw .tooLarge(.pixels, limit: Int64(maxPixelCount), actual: Int64(pixels))
        }
        var palette = [UInt8]()
        palette.reserveCapacity(256 * 3)
        if let colorMap = descriptor.ColorMap ?? gif.pointee.SColorMap, let colors = colorMap.pointee.Colors {
            for index in 0..<Int(max(0, min(colorMap.pointee.ColorCount, 256))) {
                palette.append(colors[index].Red)
                palette.append(colors[index].Green)
                palette.append(colors[index].Blue)
            }
        } else {
            guard missingColorTable == .grayLevels else { throw .undecodable(.gif, "a frame without a colour table") }
            // GIF89a lets a decoder supply its own table; index n as grey n
            // (Pillow's reading) keeps the picture visible.
            for level in 0...255 { palette += [UInt8(level), UInt8(level), UInt8(level)] }
        }
        let transparent = control.map { Int($0.TransparentColor) } ?? -1
        let frame = GIFFrame(
            rect: rect, palette: palette,
            transparentIndex: (0..<256).contains(transparent) ? transparent : nil,
            delayCentiseconds: control.map { Int($0.DelayTime) } ?? 0,
            disposal: control.map { Int($0.DisposalMode) } ?? 0,
            isInterlaced: descriptor.Interlace
        )
        try begin(frame)
        if let wideCodeSize {
            try readWideCodeImage(rect: rect, codeSize: wideCodeSize, interlaced: descriptor.Interlace, row: row)
            return frame
        }
        var line = [UInt8](repeating: 0, count: rect.width)
        try line.withUnsafeMutableBufferPointer { (buffer) throws(ImageError) in
            for y in Self.rowOrder(height: rect.height, interlaced: descriptor.Interlace) {
                guard DGifGetLine(gif, buffer.baseAddress, Int32(rect.width)) == GIF_OK else { throw lastError("decoding row \(y)") }
                row(y, UnsafeBufferPointer(buffer))
            }
        }
        return frame
    }

    /// Reads the LZW data giflib refused (its sub-blocks, through giflib)
    /// and decodes it with ``GIFWideCodeDecoder``.
    private func readWideCodeImage(
        rect: GIFFrame.Rect, codeSize: Int, interlaced: Bool, row: (Int, UnsafeBufferPointer<UInt8>) -> Void
    ) throws(ImageError) {
        var compressed: [UInt8] = []
        var block: UnsafeMutablePointer<GifByteType>?
        repeat {
            guard DGifGetCodeNext(gif, &block) == GIF_OK else { throw lastError("reading image data") }
            if let block { compressed.append(contentsOf: UnsafeBufferPointer(start: block + 1, count: Int(block[0]))) }
        } while block != nil
        let indices = GIFWideCodeDecoder.decode(compressed, minimumCodeSize: codeSize, count: rect.width * rect.height)
        indices.withUnsafeBufferPointer { indices in
            for (stored, y) in Self.rowOrder(height: rect.height, interlaced: interlaced).enumerated() {
                row(y, UnsafeBufferPointer(rebasing: indices[(stored * rect.width)..<((stored + 1) * rect.width)]))
            }
        }
    }

    /// Reads past the LZW data of the current image without decoding it.
    private func skipImageData() throws(ImageError) {
        var codeSize: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        guard DGifGetCode(gif, &codeSize, &block) == GIF_OK else { throw lastError("skipping image data") }
        while block != nil {
            guard DGifGetCodeNext(gif, &block) == GIF_OK else { throw lastError("skipping image data") }
        }
    }

    /// The display rows in the order the file stores them: top to bottom, or
    /// the four interlace passes (every 8th row from 0, every 8th from 4,
    /// every 4th from 2, every 2nd from 1).
    static func rowOrder(height: Int, interlaced: Bool) -> [Int] {
        guard interlaced else { return Array(0..<height) }
        return [(0, 8), (4, 8), (2, 4), (1, 2)].flatMap { start, step in Array(stride(from: start, to: height, by: step)) }
    }

    private func lastError(_ stage: String) -> ImageError {
        Self.error(gif.pointee.Error, while: stage)
    }

    /// An ``ImageError`` with giflib's message for `code`.
    static func error(_ code: Int32, while stage: String) -> ImageError {
        let message = GifErrorString(code).map { String(cString: $0) } ?? "giflib error \(code)"
        let truncated = code == D_GIF_ERR_READ_FAILED || code == D_GIF_ERR_EOF_TOO_SOON
        return .undecodable(.gif, "\(truncated ? "truncated: " : "")\(message) (\(stage))")
    }
}
