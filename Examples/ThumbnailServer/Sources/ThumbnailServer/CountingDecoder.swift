import AsyncWebImage
import Foundation
import Metrics

/// A decoder that counts the decodes of the decoder it wraps in
/// `thumbnail_decodes_total` (on `/metrics`), so a test and an operator can
/// see that an encoded-result hit decodes nothing.
///
/// It wraps every decoder the server's loader uses (``wrapping(_:)``), so
/// each decode — from the network, the disk or the fleet's Redis — counts once.
struct CountingDecoder: AnimatedImageDecoding {
    /// The decoder doing the work.
    let base: any ImageDecoding
    /// The counter, shared by every wrapped decoder.
    let counter: Counter
    /// The pixels decoded (`thumbnail_decoded_pixels_total`): how much a
    /// reduced (thumbnail) decode saved.
    let pixels: Counter

    func canDecode(_ data: Data) -> Bool { base.canDecode(data) }

    func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        counter.increment()
        let image = try base.decode(data, options: options)
        pixels.increment(by: Int64(image.width) * Int64(image.height))
        return image
    }

    /// The wrapped decoder's header read: the loader schedules huge images
    /// in its CPU limiter's heavy lane by it, which a wrapper must not hide.
    func declaredSize(of data: Data) -> PixelSize? { base.declaredSize(of: data) }

    /// The wrapped decoder's structural check, made before a heavy image
    /// waits for the heavy lane (a many-scan JPEG is refused at once).
    func checkStructureLimits(of data: Data, options: ImageDecodingOptions) throws {
        try base.checkStructureLimits(of: data, options: options)
    }

    /// The wrapped decoder's frames when it decodes animations (GIF,
    /// animated WebP, APNG), so the server can keep an animation animated;
    /// `nil` (a still image) otherwise. An animation counts as one decode.
    func makeAnimatedFrameDecoder(_ data: Data, options: ImageDecodingOptions) throws -> (any AnimatedFrameDecoder)? {
        guard let animated = base as? any AnimatedImageDecoding,
              let frames = try animated.makeAnimatedFrameDecoder(data, options: options) else { return nil }
        counter.increment()
        return frames
    }

    // No progressive decoder: the server never asks for previews, and one
    // would decode outside the count.

    /// `registry` with each decoder wrapped, counting into `thumbnail_decodes_total`.
    static func wrapping(_ registry: ImageCoderRegistry) -> ImageCoderRegistry {
        let counter = Counter(label: "thumbnail_decodes_total")
        let pixels = Counter(label: "thumbnail_decoded_pixels_total")
        return ImageCoderRegistry(
            decoders: registry.decoders.map { CountingDecoder(base: $0, counter: counter, pixels: pixels) },
            encoders: registry.encoders
        )
    }
}
