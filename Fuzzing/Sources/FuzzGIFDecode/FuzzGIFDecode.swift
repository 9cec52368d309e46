import AsyncWebImage
import Foundation
import FuzzSupport
import AsyncWebImageGIF

/// Fuzzes `GIFCoder.decode` (giflib reading from memory, the screen and
/// frame pixel limits, compositing the first frame, interlace order,
/// resampled thumbnails) with decode options chosen by the input's length,
/// each compared with its partner options (full size against a thumbnail:
/// both must succeed or both fail, and the thumbnail, resampled row by row
/// while decoding, must equal the full canvas resampled, byte for byte).
/// Anything but a valid image or an `ImageError` is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGIFDecode(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    FuzzInput.decodeBothWays(GIFCoder(), as: .gif, data, selector: count, "GIFCoder.decode", thumbnailIsResampledFullDecode: true)
    return 0
}
