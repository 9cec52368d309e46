import Glibc

/// A snapshot of the clocks and counters a measurement is made of.
///
/// Wall time alone is misleading on a shared 2-core machine (another process
/// compiling steals the cores), so every measurement also records CPU time,
/// which a stolen core does not inflate.
struct ResourceUsage: Sendable {
    /// Monotonic wall-clock seconds.
    var wall: Double
    /// CPU seconds (user + system) of every thread of this process (getrusage).
    var processCPU: Double
    /// CPU seconds of waited-for child processes (the `curl` baseline).
    var childrenCPU: Double

    /// The current values.
    static func now() -> ResourceUsage {
        ResourceUsage(wall: wallSeconds(), processCPU: rusageSeconds(__rusage_who_t(RUSAGE_SELF.rawValue)), childrenCPU: rusageSeconds(__rusage_who_t(RUSAGE_CHILDREN.rawValue)))
    }

    /// Differences since `start`.
    func since(_ start: ResourceUsage) -> ResourceUsage {
        ResourceUsage(wall: wall - start.wall, processCPU: processCPU - start.processCPU, childrenCPU: childrenCPU - start.childrenCPU)
    }

    /// Process plus children CPU seconds.
    var totalCPU: Double { processCPU + childrenCPU }

    // MARK: Clocks

    /// Monotonic seconds since an arbitrary point.
    static func wallSeconds() -> Double {
        clockSeconds(CLOCK_MONOTONIC)
    }

    /// CPU seconds of the calling thread. Exact (nanoseconds) and untouched
    /// by other processes, so it is the measure for synchronous work that
    /// stays on one thread (a decode).
    static func threadCPUSeconds() -> Double {
        clockSeconds(CLOCK_THREAD_CPUTIME_ID)
    }

    /// CPU seconds of the whole process, for asynchronous work that hops threads.
    static func processCPUSeconds() -> Double {
        clockSeconds(CLOCK_PROCESS_CPUTIME_ID)
    }

    private static func clockSeconds(_ clock: clockid_t) -> Double {
        var spec = timespec()
        clock_gettime(clock, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    private static func rusageSeconds(_ who: __rusage_who_t) -> Double {
        var usage = rusage()
        getrusage(who, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    // MARK: Memory

    /// The peak resident set size (VmHWM) in bytes, or `nil` without /proc.
    static func peakRSSBytes() -> Int? { statusField("VmHWM:") }

    /// The current resident set size (VmRSS) in bytes, or `nil` without /proc.
    static func currentRSSBytes() -> Int? { statusField("VmRSS:") }

    /// Resets the peak RSS to the current RSS, so each case reports its own
    /// peak rather than the largest one so far. Linux ≥ 4.0 accepts "5" in
    /// /proc/self/clear_refs for this; returns `false` where it is refused
    /// (the peak is then the process's lifetime peak).
    @discardableResult
    static func resetPeakRSS() -> Bool {
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "5", 1) == 1
    }

    /// Reads one `kB` field of /proc/self/status with read(2): no Foundation
    /// allocation churn while a memory figure is being taken.
    private static func statusField(_ name: String) -> Int? {
        let fd = open("/proc/self/status", O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 8192)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[0..<count], as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            let digits = line.dropFirst(name.count).filter(\.isNumber)
            return Int(digits).map { $0 * 1024 }
        }
        return nil
    }
}
