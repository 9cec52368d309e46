import AsyncWebImage
import Foundation
import FuzzSupport
import AsyncWebImageHEIF

/// Fuzzes `HEIFCoder.decode` (libheif's box parser and transforms, the
/// pixel limit from the primary image's handle and `ispe`, libde265,
/// 10/12-bit reduction, resampling) with decode options chosen by the
/// input's length, each compared with its partner options (both must
/// succeed or both fail, except that a thumbnail may succeed from the
/// embedded thumbnail where the damaged primary image fails). Anything but a valid image or an `ImageError` is
/// a finding, as is a single allocation over `-malloc_limit_mb`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHEIFDecode(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    FuzzInput.decodeBothWays(HEIFCoder(), as: .heic, data, selector: count, "HEIFCoder.decode", thumbnailMayAcceptMore: true)
    return 0
}
