import Foundation

/// How many cores this process may keep busy: the fewest of the machine's
/// active processors, the CPUs in the process's affinity mask (`taskset`,
/// a cpuset) and its CPU quota (a container's CPU limit: cgroup v2
/// `cpu.max`, or v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`, rounded up).
///
/// Foundation's `activeProcessorCount` counts the machine's cores only, so a
/// server pinned to one core or limited to two in a 64-core host would run
/// as many CPU-bound jobs at once as the host has cores: no more throughput,
/// and every job's buffers held at the same time. ``ConcurrencyLimiter``'s
/// default limit is this count.
enum AvailableCores {
    /// The count for this process, read once.
    static let count: Int = count(
        processors: ProcessInfo.processInfo.activeProcessorCount,
        status: read("/proc/self/status"),
        quota: quotaFiles()
    )

    /// The count from what the system reports: `status` is the text of
    /// `/proc/self/status`, `quota` the contents of the quota files found
    /// (nil where absent). At least 1.
    static func count(processors: Int, status: String?, quota: (cpuMax: String?, cfsQuota: String?, cfsPeriod: String?)) -> Int {
        var cores = max(1, processors)
        if let status, let affinity = affinityCount(status: status) { cores = min(cores, affinity) }
        if let limit = quotaCount(cpuMax: quota.cpuMax) ?? quotaCount(cfsQuota: quota.cfsQuota, cfsPeriod: quota.cfsPeriod) {
            cores = min(cores, limit)
        }
        return max(1, cores)
    }

    /// The CPUs of `Cpus_allowed_list` ("0", "0-3", "0,2-5"); nil when the
    /// line is absent or not in that form.
    static func affinityCount(status: String) -> Int? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") }) else { return nil }
        var count = 0
        for range in line.dropFirst("Cpus_allowed_list:".count).split(separator: ",") {
            let bounds = range.split(separator: "-").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard (1...2).contains(bounds.count), let low = bounds.first ?? nil, let high = bounds.last ?? nil,
                  low >= 0, high >= low, high - low < 1 << 20 else { return nil }
            count += high - low + 1
        }
        return count > 0 ? count : nil
    }

    /// Cores a cgroup v2 `cpu.max` ("150000 100000"; "max 100000" is no
    /// limit) allows, rounded up; nil for no limit or another form.
    static func quotaCount(cpuMax: String?) -> Int? {
        guard let parts = cpuMax?.split(whereSeparator: \.isWhitespace), parts.count == 2,
              let quota = Int(parts[0]), let period = Int(parts[1]) else { return nil }
        return cores(quota: quota, period: period)
    }

    /// Cores a cgroup v1 quota and period (microseconds; a quota of -1 is
    /// no limit) allow, rounded up; nil for no limit or another form.
    static func quotaCount(cfsQuota: String?, cfsPeriod: String?) -> Int? {
        guard let quotaText = cfsQuota?.trimmingCharacters(in: .whitespacesAndNewlines), let quota = Int(quotaText),
              let periodText = cfsPeriod?.trimmingCharacters(in: .whitespacesAndNewlines), let period = Int(periodText)
        else { return nil }
        return cores(quota: quota, period: period)
    }

    private static func cores(quota: Int, period: Int) -> Int? {
        guard quota > 0, period > 0 else { return nil }
        return max(1, (quota + period - 1) / period)
    }

    /// The quota files of the process's own cgroup (v2: its path from
    /// `/proc/self/cgroup`'s `0::` line, else the namespace root a container sees).
    private static func quotaFiles() -> (cpuMax: String?, cfsQuota: String?, cfsPeriod: String?) {
        var cpuMax: String?
        if let cgroups = read("/proc/self/cgroup"),
           let line = cgroups.split(separator: "\n").first(where: { $0.hasPrefix("0::") }) {
            let path = line.dropFirst(3)
            if !path.contains("..") { cpuMax = read("/sys/fs/cgroup" + path + "/cpu.max") }
        }
        return (
            cpuMax ?? read("/sys/fs/cgroup/cpu.max"),
            read("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"),
            read("/sys/fs/cgroup/cpu/cpu.cfs_period_us")
        )
    }

    /// A small system file's text; nil when it cannot be read.
    private static func read(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path), data.count <= 65_536 else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
