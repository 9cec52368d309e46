import AsyncWebImage
import Foundation
import FuzzSupport

/// Fuzzes `PNGCoder.decode` (libspng with chunk limits, the decode plan,
/// 16-bit rounding, shrink-on-load, resampling, eXIf orientation) with
/// decode options chosen by the input's length, each compared with its
/// partner options (full size against a thumbnail: both must succeed or
/// both fail), and half the inputs resealed with correct CRCs (see
/// `PNGResealing`). Anything but a valid image or an `ImageError` is a
/// finding, as is a single allocation over `-malloc_limit_mb`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNGDecode(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let raw = start.map { Data(bytes: $0, count: count) } ?? Data()
    let data = PNGResealing.applies(toCount: count) ? PNGResealing.resealed(raw) : raw
    FuzzInput.decodeBothWays(PNGCoder(), as: .png, data, selector: count, "PNGCoder.decode")
    return 0
}
