import AsyncWebImage
import Foundation
import FuzzSupport
import AsyncWebImageSVG

/// One coder for every input: its render workers (this binary started
/// again, see `SVGRenderer`) are kept from one input to the next.
private let coder = SVGCoder(maxElementCount: 5000, maxNestingDepth: 64, renderTimeout: .seconds(2))

/// Fuzzes `SVGCoder.decode` (the markup scan with its entity refusal,
/// element, reference and filter limits, the raster size from the document
/// and the options, the exchange with the render worker, librsvg's parse and
/// render in that worker, un-premultiplying) with decode options chosen by
/// the input's length, against their partner options (a thumbnail renders
/// at another size, so it may succeed where a huge intrinsic size fails the
/// limit). Renders are bounded by a 2 s timeout. Anything but a valid image
/// or an `ImageError` is a finding; a crash of librsvg itself ends only its
/// worker (an `ImageError`), so this target no longer finds those.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSVGDecode(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    FuzzInput.decodeBothWays(coder, as: .svg, data, selector: count, "SVGCoder.decode", thumbnailMayAcceptMore: true)
    return 0
}
