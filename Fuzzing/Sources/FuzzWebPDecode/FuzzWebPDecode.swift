import AsyncWebImage
import Foundation
import FuzzSupport
import AsyncWebImageWebP

/// Fuzzes `WebPCoder.decode` (libwebp's header parse, the pixel limit,
/// the scaled decode, the EXIF orientation read through libwebpdemux) with
/// decode options chosen by the input's length, each compared with its
/// partner options (full size against a thumbnail: both must succeed or
/// both fail); then `WebPProgressiveDecoder` fed
/// growing prefixes cut at points seeded from the input (libwebp's
/// incremental decoder), every preview checked. Anything but a valid
/// image or an `ImageError` is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebPDecode(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    FuzzInput.decodeBothWays(WebPCoder(), as: .webp, data, selector: count, "WebPCoder.decode")

    let options = FuzzInput.options(count)
    var decoder = WebPProgressiveDecoder(options: options)
    var generator = SplitMix64(seededBy: data.prefix(64))
    var end = 0
    while end < data.count {
        end = min(data.count, end + 1 + Int(generator.next() % UInt64(max(1, data.count / 4))))
        guard let preview = FuzzInput.expectingImageError("WebPProgressiveDecoder.preview", {
            try decoder.preview(for: data.prefix(end))
        }) else { continue }
        guard let preview else { continue }
        FuzzInput.check(preview, options: options, isPreview: true, "WebPProgressiveDecoder.preview")
    }
    return 0
}
