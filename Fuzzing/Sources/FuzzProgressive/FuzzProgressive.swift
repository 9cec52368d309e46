import AsyncWebImage
import Foundation
import FuzzSupport

/// Fuzzes both progressive decoders the way a download feeds them: the
/// input arrives as growing prefixes cut at random points (a generator
/// seeded from the input, so every input replays the same chunking), now
/// and then a restart from a shorter prefix, then the final decode.
///
/// A JPEG-looking input goes to `JPEGProgressiveDecoder`, a PNG-looking one
/// to `PNGProgressiveDecoder`, anything else to both. Every preview must be
/// a valid image marked as a preview, of the final image's size when the
/// whole data decodes; errors must be `ImageError`s; the
/// number of previews is bounded.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProgressive(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let raw = start.map { Data(bytes: $0, count: count) } ?? Data()
    // Half the PNG inputs get correct CRCs, to reach past libspng's CRC check.
    let data = PNGResealing.applies(toCount: count) ? PNGResealing.resealed(raw) : raw
    let options = FuzzInput.options(count)
    switch ImageFormat.detect(data) {
    case .jpeg:
        feed(data, to: JPEGCoder().makeProgressiveDecoder(options: options)!, final: JPEGCoder(), options: options)
    case .png:
        feed(data, to: PNGCoder().makeProgressiveDecoder(options: options)!, final: PNGCoder(), options: options)
    default:
        feed(data, to: JPEGCoder().makeProgressiveDecoder(options: options)!, final: JPEGCoder(), options: options)
        feed(data, to: PNGCoder().makeProgressiveDecoder(options: options)!, final: PNGCoder(), options: options)
    }
    return 0
}

/// Feeds `data` to `decoder` in random chunks, then decodes it whole with `final`.
private func feed(_ data: Data, to decoder: some ProgressiveImageDecoding, final: some ImageDecoding, options: ImageDecodingOptions) {
    var decoder = decoder
    var random = SplitMix64(seededBy: data)
    var end = 0
    var previews = 0
    var calls = 0
    var previewSizes: Set<PixelSize> = []
    // Bounded: `end` grows by at least one byte per call, except for at most
    // one restart, which sets it back once.
    var restarted = false
    while end < data.count {
        if !restarted, end > 16, random.next() % 16 == 0 {
            restarted = true
            end = Int(random.next() % UInt64(end))
        } else {
            // Mostly small chunks (a slow network), sometimes large ones.
            let limit = random.next() % 4 == 0 ? 4096 : 64
            end = min(data.count, end + 1 + Int(random.next() % UInt64(limit)))
        }
        calls += 1
        // A fresh Data from a slice, as a loader's buffer would be (startIndex 0).
        let prefix = Data(data.prefix(end))
        let preview: Image?
        do {
            preview = try decoder.preview(for: prefix)
        } catch is ImageError {
            // The bytes so far are already bad: a real download stops here.
            break
        } catch {
            fatalError("preview threw \(type(of: error)), not ImageError: \(error)")
        }
        if let preview {
            previews += 1
            FuzzInput.check(preview, options: options, isPreview: true, "preview \(previews) at \(end) bytes")
            previewSizes.insert(preview.size)
        }
    }
    precondition(previews <= max(calls, 1), "more previews than calls")
    if let image = FuzzInput.expectingImageError("final decode", { try final.decode(data, options: options) }) {
        FuzzInput.check(image, options: options, isPreview: false, "final decode")
        // A preview stands in for the final image: it must have its size.
        precondition(previewSizes.allSatisfy { $0 == image.size }, "previews of sizes \(previewSizes), final image \(image.size)")
    }
}
