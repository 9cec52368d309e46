import Foundation
import CSpng

/// Makes previews of a PNG while it downloads.
///
/// Fed all the bytes received so far, each time more arrive, it returns a
/// preview only when one shows something new:
/// - **Interlaced (Adam7)**: when a new pass has fully arrived. Pixels no
///   pass has reached yet repeat the nearest decoded pixel above and to the
///   left, so every preview covers the whole frame (blocky after pass 1,
///   exact after pass 7).
/// - **Not interlaced**: when at least an eighth of the image's rows more
///   than in the last preview have arrived (or the last rows). Rows not yet
///   received are zero: transparent for images with alpha, black otherwise.
///
/// libspng cannot resume a decode, so each attempt decodes from the start.
/// To keep the total work linear, an attempt is made only when the
/// compressed image data received has grown by half since the last one
/// (or the file is complete): the attempts inflate at most 3× the image
/// data (a geometric series of ratio 1.5) plus once more for the complete
/// file, so previews of a whole download cost at most about four full
/// decodes, however finely the data arrives; and each new Adam7 pass (each
/// twice the size of the one before) is still caught.
///
/// Previews have the final image's pixel format and size, or the size the
/// decode options ask for (thumbnail, scale-down, applied orientation), and
/// ``Image/isPreview`` set.
struct PNGProgressiveDecoder: ProgressiveImageDecoding {
    /// The options every preview is decoded with.
    public let options: ImageDecodingOptions
    /// Compressed image bytes at the last decode attempt.
    private var attemptedImageBytes = 0
    /// Decodes attempted so far (tests check the geometric bound with it).
    private(set) var decodeAttempts = 0
    /// Compressed image bytes decoded over all attempts.
    private(set) var decodedImageBytes = 0
    /// Rows (not interlaced) or complete passes (interlaced) in the last preview.
    private var previewedRows = 0
    private var previewedPasses = 0

    /// Creates a decoder for one download.
    public init(options: ImageDecodingOptions = .init()) {
        self.options = options
    }

    /// Returns a preview of the PNG in `data` (all bytes received so far), or
    /// `nil` when nothing new is worth showing yet.
    ///
    /// - Throws: ``ImageError/tooLarge(_:limit:actual:)`` as soon as the
    ///   header declares more pixels than allowed;
    ///   ``ImageError/undecodable(_:_:)`` when the bytes received are already
    ///   wrong (not a PNG, a bad CRC, corrupt compressed data). Data that
    ///   merely stops is never an error here.
    public mutating func preview(for data: Data) throws -> Image? {
        try data.withUnsafeBytes { bytes in
            let scan = try PNGChunkScan(bytes)
            guard let size = scan.size else { return nil }
            guard size.width > 0, size.height > 0 else { throw ImageError.undecodable(.png, "the header declares \(size) pixels") }
            try options.checkPixelLimit(size)
            let grown = scan.imageDataBytes * 2 >= attemptedImageBytes * 3 && scan.imageDataBytes > attemptedImageBytes
            guard scan.imageDataBytes > 0, grown || (scan.isComplete && scan.imageDataBytes > attemptedImageBytes) else {
                return nil
            }
            attemptedImageBytes = scan.imageDataBytes
            decodeAttempts += 1
            decodedImageBytes += scan.imageDataBytes
            if let sealed = scan.decodableBytes(bytes) {
                return try sealed.withUnsafeBytes { try attempt($0) }
            }
            return try attempt(bytes)
        }
    }

    /// Decodes as much of `bytes` as possible and makes a preview if it is worth one.
    private mutating func attempt(_ bytes: UnsafeRawBufferPointer) throws -> Image? {
        let context = try SpngContext(decoding: bytes)
        let header = try context.header()
        try options.checkPixelLimit(PixelSize(width: Int(header.width), height: Int(header.height)))
        let plan = try PNGDecodePlan(ihdr: header, hasTransparencyChunk: try context.hasTransparencyChunk())
        guard try PNGRowDecoder.start(context, plan: plan, toleratingTruncation: true) else { return nil }
        // Now, while libspng has read every chunk before the image data and
        // not yet run into the end of the received bytes.
        let orientation = context.exifOrientation()
        var progress = PNGRowDecoder.Progress()
        let (lastRows, lastPasses) = (previewedRows, previewedPasses)
        let decoded = try Image.make(width: plan.width, height: plan.height, pixelFormat: plan.pixelFormat, format: .png) {
            pixels in
            progress = try PNGRowDecoder.decodeRows(context, plan: plan, into: pixels, toleratingTruncation: true)
            if plan.isInterlaced {
                if progress.completedPasses > lastPasses, !progress.isComplete {
                    Self.replicate(pixels, plan: plan, completedPasses: progress.completedPasses)
                } else if !progress.isComplete {
                    pixels.initializeMemory(as: UInt8.self, repeating: 0) // discarded below
                }
            } else if progress.rows < plan.height {
                // Not-yet-received rows, and rows never written when no preview is made.
                let start = progress.rows * plan.rowBytes
                UnsafeMutableRawBufferPointer(rebasing: pixels[start...]).initializeMemory(as: UInt8.self, repeating: 0)
            }
        }
        if plan.isInterlaced {
            guard progress.completedPasses > lastPasses else { return nil }
            previewedPasses = progress.completedPasses
        } else {
            let step = max(1, plan.height / 8)
            guard progress.rows > lastRows, progress.rows >= lastRows + step || progress.isComplete else { return nil }
            previewedRows = progress.rows
        }
        let preview = decoded.with(orientation: orientation, isPreview: true)
        let target = options.targetSize(forStored: preview.size, orientation: orientation)
        return PNGCoder.finish(preview, target: target, options: options)
    }

    /// Fills every pixel no decoded pass has reached with the decoded pixel
    /// at the top-left corner of its Adam7 block, so the preview covers the
    /// whole frame.
    ///
    /// After pass `n` the decoded pixels form a grid of `blockWidth` ×
    /// `blockHeight` cells whose top-left pixels are all known.
    static func replicate(_ pixels: UnsafeMutableRawBufferPointer, plan: PNGDecodePlan, completedPasses: Int) {
        let blocks = [(8, 8), (4, 8), (4, 4), (2, 4), (2, 2), (1, 2), (1, 1)]
        let (blockWidth, blockHeight) = blocks[min(max(completedPasses, 1), 7) - 1]
        guard let base = pixels.baseAddress, blockWidth * blockHeight > 1 else { return }
        let pixelBytes = plan.pixelFormat.bytesPerPixel
        for y in 0..<plan.height {
            let row = base + y * plan.rowBytes
            if y % blockHeight != 0 {
                // The whole row repeats the block's first row, already widened.
                row.copyMemory(from: base + (y - y % blockHeight) * plan.rowBytes, byteCount: plan.rowBytes)
                continue
            }
            for x in 0..<plan.width where x % blockWidth != 0 {
                (row + x * pixelBytes).copyMemory(from: row + (x - x % blockWidth) * pixelBytes, byteCount: pixelBytes)
            }
        }
    }
}
