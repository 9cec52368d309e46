import AWILocking
import CWebP
import Synchronization
import AsyncWebImage

/// The libwebp incremental decoder behind a ``WebPProgressiveDecoder``,
/// with the configuration it references and what was fed and shown so far.
///
/// `Sendable` without `@unchecked`: the C state lives in a ``Lock``, which
/// only hands it out to one caller at a time.
final class WebPIncrementalSession: Sendable {
    /// The C objects and counters; only ever touched under the lock.
    private struct State {
        /// libwebp keeps a pointer to the configuration, so it lives on the heap.
        var config: UnsafeMutablePointer<WebPDecoderConfig>?
        var decoder: OpaquePointer?
        /// Bytes of the download handed to libwebp.
        var fed = 0
        /// Decoded rows shown in the last preview.
        var previewedRows = 0
        var size = PixelSize(width: 0, height: 0)
        var target = PixelSize(width: 0, height: 0)
        var pixelFormat = PixelFormat.rgb8
        var finished = false

        /// Frees the decoder and its output.
        mutating func reset() {
            if let decoder { WebPIDelete(decoder) }
            if let config {
                WebPFreeDecBuffer(&config.pointee.output)
                config.deallocate()
            }
            self = State()
        }
    }

    private let state = Lock(State())

    deinit {
        state.withLock { $0.reset() }
    }

    /// Feeds the bytes of `webp` beyond those fed before and returns a
    /// preview if enough new rows were decoded.
    func preview(for webp: UnsafeRawBufferPointer, options: ImageDecodingOptions) throws -> Image? {
        try state.withLock { (state: inout State) throws -> Image? in
            // A shorter prefix than before is a new download.
            if webp.count < state.fed { state.reset() }
            if state.decoder == nil {
                guard try Self.start(&state, webp, options: options) else { return nil }
            }
            guard !state.finished, webp.count > state.fed, let decoder = state.decoder, let base = webp.baseAddress else {
                return nil
            }
            let status = WebPIAppend(decoder, base.assumingMemoryBound(to: UInt8.self) + state.fed, webp.count - state.fed)
            state.fed = webp.count
            switch status {
            case VP8_STATUS_OK: state.finished = true
            case VP8_STATUS_SUSPENDED: break
            default: throw WebPContainer.error(status, while: "decoding incrementally")
            }
            return try Self.makePreview(&state, webp, options: options)
        }
    }

    /// Creates the decoder once the header has arrived; `false` while it has not.
    private static func start(_ state: inout State, _ webp: UnsafeRawBufferPointer, options: ImageDecodingOptions) throws -> Bool {
        // Not yet the whole header: wait for more bytes rather than fail.
        guard let features = try WebPContainer.features(webp, allowingPartialHeader: true) else { return false }
        guard features.has_animation == 0 else { throw ImageError.undecodable(.webp, "animated WebP: only still images are decoded") }
        let size = PixelSize(width: Int(features.width), height: Int(features.height))
        try options.checkPixelLimit(size)
        let orientation = WebPContainer.orientation(in: webp)
        let wanted = options.targetSize(forStored: size, orientation: orientation) ?? size
        // As WebPCoder decodes a thumbnail (libwebp's scaling, the thumbnail filter after it in linear light).
        let target = WebPCoder.scaledDecodeSize(of: size, for: wanted, options: options)
        let config = UnsafeMutablePointer<WebPDecoderConfig>.allocate(capacity: 1)
        config.initialize(to: WebPDecoderConfig())
        guard WebPInitDecoderConfig(config) != 0 else {
            config.deallocate()
            throw ImageError.undecodable(.webp, "libwebp version mismatch")
        }
        state.config = config
        state.size = size
        state.target = target
        state.pixelFormat = features.has_alpha != 0 ? .rgba8 : .rgb8
        if target != size {
            config.pointee.options.use_scaling = 1
            config.pointee.options.scaled_width = Int32(target.width)
            config.pointee.options.scaled_height = Int32(target.height)
        }
        config.pointee.output.colorspace = state.pixelFormat == .rgba8 ? MODE_RGBA : MODE_RGB
        guard let decoder = WebPIDecode(nil, 0, config) else {
            throw ImageError.undecodable(.webp, "cannot create the incremental decoder")
        }
        state.decoder = decoder
        return true
    }

    /// Copies the rows decoded so far into a preview, if there are enough new ones.
    private static func makePreview(_ state: inout State, _ webp: UnsafeRawBufferPointer, options: ImageDecodingOptions) throws -> Image? {
        var lastY: Int32 = 0, width: Int32 = 0, height: Int32 = 0, stride: Int32 = 0
        guard let rgb = WebPIDecGetRGB(state.decoder, &lastY, &width, &height, &stride),
              Int(width) == state.target.width, Int(height) == state.target.height
        else { return nil }
        let rows = state.finished ? Int(height) : min(max(Int(lastY), 0), Int(height))
        let step = max(1, Int(height) / 8)
        guard rows > state.previewedRows, rows >= state.previewedRows + step || state.finished else { return nil }
        state.previewedRows = rows
        let format = state.pixelFormat
        let rowBytes = Int(width) * format.bytesPerPixel
        let sourceStride = Int(stride)
        var preview = Image.make(width: Int(width), height: Int(height), pixelFormat: format, format: .webp, isPreview: true) { pixels in
            guard let destination = pixels.baseAddress else { return }
            for row in 0..<rows {
                (destination + row * rowBytes).copyMemory(from: rgb + row * sourceStride, byteCount: rowBytes)
            }
            UnsafeMutableRawBufferPointer(rebasing: pixels[(rows * rowBytes)...]).initializeMemory(as: UInt8.self, repeating: 0)
        }
        // The EXIF chunk, when it follows the image, is known only now.
        let orientation = WebPContainer.orientation(in: webp)
        preview = preview.with(orientation: orientation)
        if let wanted = options.targetSize(forStored: state.size, orientation: orientation), wanted != state.target {
            preview = options.resampleThumbnail(preview, to: wanted)
        }
        return preview
    }
}
