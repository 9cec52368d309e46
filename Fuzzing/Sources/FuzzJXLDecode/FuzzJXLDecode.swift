import AsyncWebImage
import Foundation
import FuzzSupport
import AsyncWebImageJXL

/// Fuzzes `JXLCoder.decode` (libjxl's header and frame decoding, the pixel
/// and memory limits before the output buffer, the DC-only thumbnail path,
/// orientation, colour profile) with decode options chosen by the input's
/// length, against their partner options (a thumbnail may succeed from the
/// DC where damaged AC data fails the full decode, never the reverse);
/// then `JXLProgressiveDecoder` fed growing prefixes. Anything but a valid
/// image or an `ImageError` is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJXLDecode(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    FuzzInput.decodeBothWays(JXLCoder(), as: .jxl, data, selector: count, "JXLCoder.decode", thumbnailMayAcceptMore: true)
    var progressive = JXLProgressiveDecoder(options: FuzzInput.options(count))
    for fraction in [3, 5, 8] {
        let prefix = data.prefix(data.count * fraction / 8)
        if let preview = FuzzInput.expectingImageError("JXLProgressiveDecoder", { try progressive.preview(for: prefix) }) ?? nil {
            FuzzInput.check(preview, options: FuzzInput.options(count), isPreview: true, "JXLProgressiveDecoder")
        }
    }
    return 0
}
