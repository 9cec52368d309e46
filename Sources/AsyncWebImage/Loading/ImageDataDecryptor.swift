public import Foundation

/// Turns downloaded bytes into the bytes to decode (SDWebImage's decryptor):
/// decrypt, strip a wrapper, decode base64.
///
/// It runs once per subscriber on the subscriber's task, never on an actor.
public struct ImageDataDecryptor: Sendable {
    private let body: @Sendable (Data, HTTPResponseHead) throws -> Data

    /// Creates a decryptor that calls `body`.
    /// - Parameter body: Returns the bytes to decode, or throws.
    public init(_ body: @escaping @Sendable (Data, HTTPResponseHead) throws -> Data) {
        self.body = body
    }

    /// The bytes to decode.
    /// - Parameters:
    ///   - data: The complete downloaded body.
    ///   - response: The response head the body came with.
    /// - Throws: Whatever makes the data unusable; the error reaches the subscriber.
    public func decryptedData(_ data: Data, response: HTTPResponseHead) throws -> Data {
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
