import AsyncWebImage
import Foundation
import FuzzSupport

/// Fuzzes `JPEGCoder.decode` (TurboJPEG, the EOI and marker scan, the EXIF
/// reader, DCT scaling, resampling, orientation) with decode options chosen
/// by the input's length, each compared with its partner options (full
/// size against a thumbnail: both must succeed or both fail, except that a
/// progressive file's thumbnail may succeed where the full decode fails, see
/// `FuzzInput.decodeBothWays`). Anything but
/// a valid image or an `ImageError` is a finding, as is a single
/// allocation over `-malloc_limit_mb`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEGDecode(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    FuzzInput.decodeBothWays(
        JPEGCoder(), as: .jpeg, data, selector: count, "JPEGCoder.decode",
        thumbnailMayAcceptMore: JPEGFrameProbe.isProgressive(data)
    )
    return 0
}
