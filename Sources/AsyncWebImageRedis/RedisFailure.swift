/// Why one command (or pipelined batch) to a node failed. Internal: a read
/// that fails is a miss; ``RedisConnectionError`` is what a caller of
/// ``RedisStore/checkConnection()`` sees.
enum RedisFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The command's deadline passed (connect, handshake, write and read together).
    case timedOut
    /// The caller's task was cancelled.
    case cancelled
    /// The node could not be reached (refused, no route, name not found).
    case unreachable(String)
    /// The connection failed or closed mid-command.
    case link(String)
    /// `AUTH` was refused: a wrong password or ACL user (named without the reply's text).
    case authentication(RedisAuthenticationRefusal)
    /// The TLS handshake or the server's certificate failed.
    case tls(String)
    /// A set-up command other than `AUTH` was refused (`SELECT`, `READONLY`).
    case setup(String)
    /// A reply longer than the bound: refused before it was read.
    case valueTooLarge(Int)
    /// Bytes that are not RESP, or a reply nothing asked for.
    case protocolViolation(String)
    /// The store is shut down.
    case shutDown
    /// The node's breaker opened while the command waited for a connection.
    case breakerOpen
    /// The deadline passed before the command reached the node (while it
    /// waited for a free connection): the node's load, not its health.
    case expired

    var description: String {
        switch self {
        case .timedOut: "deadline passed"
        case .cancelled: "cancelled"
        case .unreachable(let message): "unreachable: \(message)"
        case .link(let message): "connection failed: \(message)"
        case .authentication(let refusal): "authentication refused: \(refusal)"
        case .tls(let message): "TLS: \(message)"
        case .setup(let message): "connection set-up refused: \(message)"
        case .valueTooLarge(let count): "reply of \(count) bytes over the bound"
        case .protocolViolation(let message): "protocol violation: \(message)"
        case .shutDown: "store shut down"
        case .breakerOpen: "breaker open"
        case .expired: "deadline passed waiting for a connection"
        }
    }

    /// Whether the failure says something about the node's health (and so
    /// counts towards its breaker): not a cancellation, an oversized value
    /// (someone stored it; the node answered), or the store's own shutdown.
    var countsAgainstNode: Bool {
        switch self {
        case .cancelled, .valueTooLarge, .shutDown, .breakerOpen, .expired: false
        default: true
        }
    }
}
