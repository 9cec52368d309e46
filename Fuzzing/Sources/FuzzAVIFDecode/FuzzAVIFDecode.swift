import AsyncWebImage
import Foundation
import FuzzSupport
import AsyncWebImageAVIF

/// Fuzzes `AVIFCoder.decode` (libavif's box parser, the pixel limit from
/// the parsed header, dav1d/aom, YUV to 8-bit RGB(A), irot/imir
/// orientation, resampling) with decode options chosen by the input's
/// length, each compared with its partner options (full size against a
/// thumbnail: both must succeed or both fail, and the thumbnail, converted
/// and resampled in bands, must equal the full decode resampled, byte for
/// byte). Anything but a valid image or an `ImageError` is a finding, as is
/// a single allocation over `-malloc_limit_mb`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAVIFDecode(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    FuzzInput.decodeBothWays(AVIFCoder(), as: .avif, data, selector: count, "AVIFCoder.decode", thumbnailIsResampledFullDecode: true)
    return 0
}
