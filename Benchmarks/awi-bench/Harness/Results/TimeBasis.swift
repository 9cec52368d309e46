/// Which clock a ratio is computed on.
public enum TimeBasis: String, Sendable, Codable {
    /// Wall time: for I/O, latency and multi-threaded work.
    case wall
    /// CPU time: for single-threaded CPU work, immune to cores stolen by other processes.
    case cpu
}
