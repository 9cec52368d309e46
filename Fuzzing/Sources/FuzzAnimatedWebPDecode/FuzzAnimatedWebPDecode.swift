import AsyncWebImage
import Foundation
import FuzzSupport
import AsyncWebImageWebP

/// Fuzzes the animated WebP path: `WebPCoder.makeAnimatedFrameDecoder`
/// (libwebpdemux's partial parse, the cut-file rewrite, the limits) and
/// every frame `WebPAnimDecoder` composites, plus the still decode of the
/// same bytes (the first frame of an animation). Anything but valid frames
/// or an `ImageError` is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAnimatedWebPDecode(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    AnimationFuzzing.play(WebPCoder(), data, "WebPCoder.makeAnimatedFrameDecoder")
    FuzzInput.decodeBothWays(WebPCoder(), as: .webp, data, selector: count, "WebPCoder.decode")
    return 0
}
