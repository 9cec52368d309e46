import AsyncWebImage
import Foundation
import FuzzSupport
import AsyncWebImageAVIF

/// Fuzzes `AVIFCoder.makeAnimatedFrameDecoder` (libavif's sample tables,
/// both pixel limits before any frame, every frame converted and colour
/// managed, rewind). Anything but full-canvas RGBA8 frames or `ImageError`s
/// is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAVIFAnimation(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    AnimationFuzzing.play(AVIFCoder(), data, "AVIFCoder frames")
    return 0
}
