public import Foundation

/// Turns downloaded bytes into the bytes to decode (SDWebImage's decryptor):
/// decrypt, strip a wrapper, decode base64.
///
/// It runs once per subscriber on the subscriber's task, never on an actor.
public protocol ImageDataDecrypting: Sendable {
    /// The bytes to decode.
    /// - Parameters:
    ///   - data: The complete downloaded body.
    ///   - response: The response head the body came with.
    /// - Throws: Whatever makes the data unusable; the error reaches the subscriber.
    func decryptedData(_ data: Data, response: DataResponseHead) throws -> Data
}
