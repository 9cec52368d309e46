/// One timed run of an operation: its wall time and the CPU time it used.
struct Sample: Sendable {
    /// Wall seconds.
    var wall: Double
    /// CPU seconds: of the calling thread for synchronous work, of the
    /// process (plus children) for asynchronous work.
    var cpu: Double

    /// Times `body`, which must not suspend, by wall clock and the calling
    /// thread's CPU clock.
    static func onThread(_ body: () throws -> Void) rethrows -> Sample {
        let cpu0 = ResourceUsage.threadCPUSeconds()
        let wall0 = ResourceUsage.wallSeconds()
        try body()
        let wall = ResourceUsage.wallSeconds() - wall0
        return Sample(wall: wall, cpu: ResourceUsage.threadCPUSeconds() - cpu0)
    }

    /// Times asynchronous `body` by wall clock and the CPU time of the whole
    /// process and its waited-for children (work hops threads, and the curl
    /// baseline runs in a child).
    static func inProcess(_ body: () async throws -> Void) async rethrows -> Sample {
        let start = ResourceUsage.now()
        try await body()
        let used = ResourceUsage.now().since(start)
        return Sample(wall: used.wall, cpu: used.totalCPU)
    }
}
