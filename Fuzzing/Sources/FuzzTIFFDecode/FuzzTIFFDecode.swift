import AsyncWebImage
import Foundation
import FuzzSupport
import AsyncWebImageTIFF

/// Fuzzes `TIFFCoder.decode` (libtiff from memory with its errors captured
/// and its allocations bounded, both decode routes, strips and tiles, the
/// choice of a reduced-resolution copy, resampling while reading) with
/// decode options chosen by the input's length, against their partner
/// options (a thumbnail may succeed from a reduced copy where the damaged
/// page fails, never the reverse); then the pages as an animation. Anything
/// but a valid image or an `ImageError` is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTIFFDecode(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    FuzzInput.decodeBothWays(TIFFCoder(), as: .tiff, data, selector: count, "TIFFCoder.decode", thumbnailMayAcceptMore: true)
    AnimationFuzzing.play(TIFFCoder(), data, "TIFFCoder pages")
    return 0
}
