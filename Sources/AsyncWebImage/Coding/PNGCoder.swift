public import Foundation

/// PNG decoding and encoding on libspng.
public struct PNGCoder: ImageDecoding, ImageEncoding {
    /// Creates the coder.
    public init() {}

    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .png }

    public func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        throw ImageError.undecodable(.png, "PNG decoding is being written")
    }

    public func canEncode(_ format: ImageFormat) -> Bool { format == .png }

    public func encode(_ image: Image, as format: ImageFormat, quality: Double) throws -> Data {
        throw ImageError.encodingFailed(.png, "PNG encoding is being written")
    }
}
