import AsyncWebImage
import Foundation
import FuzzSupport
import AsyncWebImageSVG

/// Fuzzes `SVGCoder.decode` (the markup scan with its entity refusal and
/// element limits, librsvg's parse and render on its own thread, the raster
/// size from the document and the options, un-premultiplying) with decode
/// options chosen by the input's length, against their partner options (a
/// thumbnail renders at another size, so it may succeed where a huge
/// intrinsic size fails the limit). Renders are bounded by a 2 s timeout.
/// Anything but a valid image or an `ImageError` is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSVGDecode(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    let coder = SVGCoder(maxElementCount: 5000, maxNestingDepth: 64, renderTimeout: .seconds(2))
    FuzzInput.decodeBothWays(coder, as: .svg, data, selector: count, "SVGCoder.decode", thumbnailMayAcceptMore: true)
    return 0
}
