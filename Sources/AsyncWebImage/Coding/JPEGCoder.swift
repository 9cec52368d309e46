public import Foundation

/// JPEG decoding and encoding on libjpeg-turbo's TurboJPEG API.
public struct JPEGCoder: ImageDecoding, ImageEncoding {
    /// Creates the coder.
    public init() {}

    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .jpeg }

    public func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        throw ImageError.undecodable(.jpeg, "JPEG decoding is being written")
    }

    public func canEncode(_ format: ImageFormat) -> Bool { format == .jpeg }

    public func encode(_ image: Image, as format: ImageFormat, quality: Double) throws -> Data {
        throw ImageError.encodingFailed(.jpeg, "JPEG encoding is being written")
    }
}
