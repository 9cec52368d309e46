import CWebP
import Foundation
import AsyncWebImage

/// Reads what a WebP file says about itself: the bitstream features and the
/// metadata chunks of the extended (VP8X) format.
///
/// Every read is bounds-checked by libwebp (`WebPGetFeatures`, `WebPDemux`),
/// so hostile sizes yield an error or `nil`, never a read past the data.
enum WebPContainer {
    /// The canvas size, alpha and animation flags from the header.
    ///
    /// - Throws: ``ImageError/undecodable(_:_:)``: "truncated" when the data
    ///   ends inside the headers, else libwebp's status.
    static func features(_ webp: UnsafeRawBufferPointer) throws(ImageError) -> WebPBitstreamFeatures {
        guard let features = try features(webp, allowingPartialHeader: false) else {
            throw error(VP8_STATUS_NOT_ENOUGH_DATA, while: "reading the header")
        }
        return features
    }

    /// The header's features, or `nil` when the data ends inside the
    /// headers and `allowingPartialHeader` is set (a download in progress).
    static func features(_ webp: UnsafeRawBufferPointer, allowingPartialHeader: Bool) throws(ImageError) -> WebPBitstreamFeatures? {
        guard !webp.isEmpty else {
            if allowingPartialHeader { return nil }
            throw .undecodable(.webp, "no data")
        }
        var features = WebPBitstreamFeatures()
        let status = WebPGetFeatures(webp.baseAddress?.assumingMemoryBound(to: UInt8.self), webp.count, &features)
        if status == VP8_STATUS_NOT_ENOUGH_DATA, allowingPartialHeader { return nil }
        guard status == VP8_STATUS_OK else { throw error(status, while: "reading the header") }
        guard features.width > 0, features.height > 0 else {
            throw .undecodable(.webp, "the header declares \(features.width)×\(features.height) pixels")
        }
        return features
    }

    /// The EXIF orientation of an extended WebP, `.up` when it has none or
    /// the chunk is malformed (a bad orientation never fails a decode).
    static func orientation(in webp: UnsafeRawBufferPointer) -> Image.Orientation {
        guard isExtended(webp) else { return .up }
        return withChunk("EXIF", in: webp) { exif in
            // The chunk holds a TIFF structure; some writers prefix it with JPEG's "Exif\0\0".
            if exif.count >= 6, exif[0] == 0x45, exif[1] == 0x78, exif[2] == 0x69, exif[3] == 0x66, exif[4] == 0, exif[5] == 0 {
                return Image.Orientation(tiff: UnsafeRawBufferPointer(rebasing: exif[6...]))
            }
            return Image.Orientation(tiff: exif)
        } ?? .up
    }

    /// A copy of the first chunk named `fourCC` of an extended WebP.
    static func chunk(_ fourCC: String, in webp: UnsafeRawBufferPointer) -> Data? {
        guard isExtended(webp) else { return nil }
        return withChunk(fourCC, in: webp) { Data($0) }
    }

    /// Whether the first chunk is VP8X, the only layout that carries metadata chunks.
    private static func isExtended(_ webp: UnsafeRawBufferPointer) -> Bool {
        webp.count >= 30 && webp[12] == 0x56 && webp[13] == 0x50 && webp[14] == 0x38 && webp[15] == 0x58
    }

    /// Calls `body` with the payload of the first chunk named `fourCC`.
    private static func withChunk<T>(_ fourCC: String, in webp: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> T?) -> T? {
        var data = WebPData(bytes: webp.baseAddress?.assumingMemoryBound(to: UInt8.self), size: webp.count)
        guard let demux = WebPDemux(&data) else { return nil }
        defer { WebPDemuxDelete(demux) }
        var iterator = WebPChunkIterator()
        guard WebPDemuxGetChunk(demux, fourCC, 1, &iterator) != 0 else { return nil }
        defer { WebPDemuxReleaseChunkIterator(&iterator) }
        return body(UnsafeRawBufferPointer(start: iterator.chunk.bytes, count: iterator.chunk.size))
    }

    /// An ``ImageError`` for a libwebp status.
    static func error(_ status: VP8StatusCode, while stage: String) -> ImageError {
        let reason = switch status {
        case VP8_STATUS_NOT_ENOUGH_DATA: "truncated: the data ends before the image does"
        case VP8_STATUS_BITSTREAM_ERROR: "corrupt bitstream"
        case VP8_STATUS_UNSUPPORTED_FEATURE: "unsupported feature"
        case VP8_STATUS_OUT_OF_MEMORY: "out of memory"
        case VP8_STATUS_INVALID_PARAM: "invalid parameter"
        case VP8_STATUS_SUSPENDED: "truncated: the decoder wants more data"
        default: "libwebp status \(status.rawValue)"
        }
        return .undecodable(.webp, "\(reason) (\(stage))")
    }
}
