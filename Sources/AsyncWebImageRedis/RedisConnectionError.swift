/// Why ``RedisStore/checkConnection()`` could not use the store's Redis: the
/// typed error a server reports at start-up. At run time the same troubles
/// are misses, never errors of a load.
public enum RedisConnectionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `AUTH` was refused: a wrong password, an unknown or disabled ACL user,
    /// a renamed `AUTH`. `message` names the failure by the reply's error
    /// code (`WRONGPASS: …`) and never holds the reply's text, which may
    /// quote the password.
    case authenticationFailed(endpoint: String, message: String)
    /// The TLS handshake failed: an untrusted or expired certificate, a
    /// name that does not match, a client certificate the server refused,
    /// or TLS files that cannot be read.
    case tlsFailed(endpoint: String, message: String)
    /// The node could not be reached (refused, no route, unknown name).
    case unreachable(endpoint: String, message: String)
    /// The node did not answer within the deadline.
    case timedOut(endpoint: String)
    /// A set-up command was refused (`SELECT` of a database the server does
    /// not have, `READONLY` on a node that is not in a cluster), or the
    /// node answered `PING` with an error (an ACL user without the right).
    case refused(endpoint: String, message: String)
    /// No seed gave a usable slot map (not a cluster, or none reachable).
    case clusterUnavailable(message: String)
    /// The node sent bytes that are not RESP.
    case protocolViolation(endpoint: String, message: String)

    /// One line for a log or a start-up message (no secret is ever in it).
    public var description: String {
        switch self {
        case .authenticationFailed(let endpoint, let message): "Redis \(endpoint): authentication failed: \(message)"
        case .tlsFailed(let endpoint, let message): "Redis \(endpoint): TLS failed: \(message)"
        case .unreachable(let endpoint, let message): "Redis \(endpoint): unreachable: \(message)"
        case .timedOut(let endpoint): "Redis \(endpoint): no answer within the deadline"
        case .refused(let endpoint, let message): "Redis \(endpoint): refused: \(message)"
        case .clusterUnavailable(let message): "Redis Cluster: no slot map: \(message)"
        case .protocolViolation(let endpoint, let message): "Redis \(endpoint): protocol violation: \(message)"
        }
    }

    /// The error a failed check of `endpoint` stands for.
    init(_ failure: RedisFailure, endpoint: String) {
        switch failure {
        case .authentication(let refusal): self = .authenticationFailed(endpoint: endpoint, message: refusal.description)
        case .tls(let message): self = .tlsFailed(endpoint: endpoint, message: message)
        case .unreachable(let message), .link(let message): self = .unreachable(endpoint: endpoint, message: message)
        case .timedOut, .cancelled, .expired: self = .timedOut(endpoint: endpoint)
        case .setup(let message): self = .refused(endpoint: endpoint, message: message)
        // The case's own message: its description would say "protocol violation" a second time.
        case .protocolViolation(let message): self = .protocolViolation(endpoint: endpoint, message: message)
        case .valueTooLarge: self = .protocolViolation(endpoint: endpoint, message: failure.description)
        case .shutDown, .breakerOpen: self = .unreachable(endpoint: endpoint, message: failure.description)
        }
    }
}
