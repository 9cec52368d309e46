package import Foundation

/// What a subscriber of ``DownloadCoalescer`` receives, in order: one
/// ``head(_:)``, then pairs of ``chunk(_:accumulated:)`` and
/// ``progress(received:expected:)``, then ``completed(_:)``.
///
/// A subscriber that joins a transfer late first receives the head and
/// every byte so far (as one chunk), then the rest. A slow subscriber
/// receives the bytes that arrived meanwhile as one larger chunk, so it
/// never falls behind a queue of small ones.
///
/// A second ``head(_:)`` means the body starts again: a transfer cut
/// mid-body and resumed got another representation (or an answer that
/// could not be spliced to the bytes so far), so what follows is a new body
/// from its first byte, and ``chunk(_:accumulated:)``'s `accumulated` restarts too.
package enum DownloadEvent: Sendable {
    /// The response head (after the subscriber's response modifier).
    case head(HTTPResponseHead)
    /// Bytes received so far and the expected total, if announced.
    case progress(received: Int64, expected: Int64?)
    /// The bytes new to this subscriber, and every byte so far (for
    /// progressive decoding). Both share the transfer's buffer: no copy.
    case chunk(Data, accumulated: Data)
    /// The complete body (after the subscriber's decryptor); the last event.
    case completed(Data)
}
