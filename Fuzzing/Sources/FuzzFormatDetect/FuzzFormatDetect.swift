import AsyncWebImage
import AsyncWebImageAllFormats
import Foundation
import FuzzSupport

/// Fuzzes `ImageFormat.detect`: it must never trap or read past its
/// 64-byte window, must agree between its two entry points, and the
/// built-in registry must pick the coder of the detected format.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFormatDetect(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    let format = ImageFormat.detect(data)
    // Same answer from a non-contiguous collection and from the header array.
    precondition(ImageFormat.detect(Array(data)) == format, "detect([UInt8]) disagrees")
    precondition(ImageFormat.detect(header: Array(data.prefix(64))) == format, "detect(header:) disagrees")
    // A suffix beyond 64 bytes never changes the answer.
    if data.count > 64 {
        precondition(ImageFormat.detect(data.prefix(64)) == format, "bytes after 64 changed the answer")
    }
    // Data sliced out of a larger buffer (non-zero startIndex) is read from its start.
    var padded = Data([0xA5])
    padded.append(data)
    precondition(ImageFormat.detect(padded.dropFirst()) == format, "a slice is read from the wrong offset")

    let decoder = ImageCoderRegistry.allFormats.decoder(for: data)
    switch format {
    case .jpeg: precondition(decoder is JPEGCoder, "JPEG not handled by JPEGCoder")
    case .png: precondition(decoder is PNGCoder, "PNG not handled by PNGCoder")
    default: precondition(decoder == nil, "\(format) claimed by \(String(describing: decoder))")
    }
    FuzzInput.blackHole((format.mimeType, format.fileExtension, format.description))
    return 0
}
