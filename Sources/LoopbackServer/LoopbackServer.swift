/// A real HTTP/1.1 server on 127.0.0.1 for tests and benchmarks (being written).
public final class LoopbackServer: Sendable {
    /// Creates a server.
    public init() {}
}
