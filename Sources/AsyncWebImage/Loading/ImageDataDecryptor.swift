public import Foundation

/// An ``ImageDataDecrypting`` made from a closure.
public struct ImageDataDecryptor: ImageDataDecrypting {
    private let body: @Sendable (Data, DataResponseHead) throws -> Data

    /// Creates a decryptor that calls `body`.
    /// - Parameter body: Returns the bytes to decode, or throws.
    public init(_ body: @escaping @Sendable (Data, DataResponseHead) throws -> Data) {
        self.body = body
    }

    public func decryptedData(_ data: Data, response: DataResponseHead) throws -> Data {
        try body(data, response)
    }

    /// Decodes a base64 body (ignoring line breaks).
    public static let base64 = ImageDataDecryptor { data, _ in
        guard let decoded = Data(base64Encoded: data, options: .ignoreUnknownCharacters) else {
            throw ImageError.undecodable(.unknown, "body is not base64")
        }
        return decoded
    }
}
