import AsyncWebImage
import Foundation
import FuzzSupport
import AsyncWebImageBMP

/// Fuzzes `BMPCoder.decode` (headers, palettes, bit fields, run-length
/// data, the limits before the pixel buffer) and, for inputs that read as
/// icons, `ICOCoder.decode` (the directory, the choice of entry, PNG and
/// bitmap entries with their AND masks), each with decode options chosen by
/// the input's length against their partner options. A BMP thumbnail is
/// the full decode resampled, byte for byte; an icon's thumbnail may read
/// another entry, so it may succeed where the full decode fails. Anything
/// but a valid image or an `ImageError` is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBMPDecode(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    if ImageFormat.detect(data) == .ico {
        FuzzInput.decodeBothWays(ICOCoder(), as: .ico, data, selector: count, "ICOCoder.decode", thumbnailMayAcceptMore: true)
    } else {
        FuzzInput.decodeBothWays(BMPCoder(), as: .bmp, data, selector: count, "BMPCoder.decode", thumbnailIsResampledFullDecode: true)
    }
    return 0
}
