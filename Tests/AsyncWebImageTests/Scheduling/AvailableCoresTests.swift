import Foundation
import Testing
@testable import AsyncWebImage

/// The default CPU limit: the affinity mask and the cgroup CPU quota bound
/// the machine's processor count.
@Suite("AvailableCores", .timeLimit(.minutes(1)))
struct AvailableCoresTests {
    static let none: (cpuMax: String?, cfsQuota: String?, cfsPeriod: String?) = (nil, nil, nil)

    @Test("the affinity list counts every CPU of its ranges; a malformed list is ignored")
    func affinity() {
        #expect(AvailableCores.affinityCount(status: "Name:\tx\nCpus_allowed_list:\t0\n") == 1)
        #expect(AvailableCores.affinityCount(status: "Cpus_allowed_list:\t0-3\n") == 4)
        #expect(AvailableCores.affinityCount(status: "Cpus_allowed_list:\t0,2-5,7\n") == 6)
        #expect(AvailableCores.affinityCount(status: "Cpus_allowed_list:\t3-1\n") == nil)
        #expect(AvailableCores.affinityCount(status: "Cpus_allowed_list:\tx\n") == nil)
        #expect(AvailableCores.affinityCount(status: "Name:\tx\n") == nil)
    }

    @Test("cgroup quotas round up; 'max' and -1 are no limit")
    func quotas() {
        #expect(AvailableCores.quotaCount(cpuMax: "150000 100000\n") == 2)
        #expect(AvailableCores.quotaCount(cpuMax: "50000 100000") == 1)
        #expect(AvailableCores.quotaCount(cpuMax: "max 100000") == nil)
        #expect(AvailableCores.quotaCount(cfsQuota: "400000\n", cfsPeriod: "100000\n") == 4)
        #expect(AvailableCores.quotaCount(cfsQuota: "-1\n", cfsPeriod: "100000\n") == nil)
    }

    @Test("the count is the fewest of processors, affinity and quota, at least 1")
    func fewest() {
        let pinned = "Cpus_allowed_list:\t0\n"
        let eight = "Cpus_allowed_list:\t0-7\n"
        #expect(AvailableCores.count(processors: 64, status: pinned, quota: Self.none) == 1)
        #expect(AvailableCores.count(processors: 64, status: eight, quota: ("200000 100000", nil, nil)) == 2)
        #expect(AvailableCores.count(processors: 64, status: eight, quota: (nil, "300000", "100000")) == 3)
        #expect(AvailableCores.count(processors: 4, status: eight, quota: Self.none) == 4)
        #expect(AvailableCores.count(processors: 0, status: nil, quota: Self.none) == 1)
    }

    @Test("this process: the same count as nproc (which honours the affinity mask), bounded by the quota; the shared limiter uses it")
    func thisProcess() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/nproc")
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        process.waitUntilExit()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let nproc = try #require(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(AvailableCores.count <= nproc)
        #expect(AvailableCores.count >= 1)
        #expect(ConcurrencyLimiter.shared.limit == AvailableCores.count)
        #expect(ConcurrencyLimiter().limit == AvailableCores.count)
    }
}
