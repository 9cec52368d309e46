import AsyncWebImage
import Foundation
import FuzzSupport

/// Fuzzes the APNG path: `PNGCoder.makeAnimatedFrameDecoder` (the chunk
/// walk, sequence and region checks, the limits), each frame's PNG decoded
/// by libspng, dispose and blend on the canvas. Half the inputs are
/// resealed with correct CRCs (see `PNGResealing`) so mutations reach the
/// frames. Anything but valid frames or an `ImageError` is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAPNGDecode(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let raw = start.map { Data(bytes: $0, count: count) } ?? Data()
    let data = PNGResealing.applies(toCount: count) ? PNGResealing.resealed(raw) : raw
    AnimationFuzzing.play(PNGCoder(), data, "PNGCoder.makeAnimatedFrameDecoder")
    return 0
}
