import AsyncWebImage
import NIOConcurrencyHelpers
import Testing
@testable import thumbnail_server

/// The idle release gives memory back once per quiet spell after work, and
/// never while a permit is held or a request waits for one.
@Suite struct IdleMemoryReleaseTests {
    @Test("no release before any work; none while a permit is held; exactly one after the work ends")
    func oncePerQuietSpell() async throws {
        let limiter = ConcurrencyLimiter(limit: 1, heavyThreadNice: nil)
        let releases = NIOLockedValueBox(0)
        let service = IdleMemoryRelease(limiter: limiter, interval: .milliseconds(5)) {
            releases.withLockedValue { $0 += 1 }
        }
        let running = Task { try await service.run() }
        defer { running.cancel() }

        // Idle from the start: nothing was used, so nothing is given back.
        try await Task.sleep(for: .milliseconds(60))
        #expect(releases.withLockedValue { $0 } == 0)

        // A permit held for many polls: still nothing.
        let (held, hold) = AsyncStream.makeStream(of: Void.self)
        let (entered, enter) = AsyncStream.makeStream(of: Void.self)
        let work = Task {
            try await limiter.withPermit {
                enter.yield()
                for await _ in held { break }
            }
        }
        for await _ in entered { break }
        try await Task.sleep(for: .milliseconds(60))
        #expect(releases.withLockedValue { $0 } == 0)

        // The work ends: one release within a bounded number of polls, and no second one.
        hold.yield()
        try await work.value
        var waited = 0
        while releases.withLockedValue({ $0 }) == 0, waited < 400 {
            try await Task.sleep(for: .milliseconds(5))
            waited += 1
        }
        #expect(releases.withLockedValue { $0 } == 1)
        try await Task.sleep(for: .milliseconds(60))
        #expect(releases.withLockedValue { $0 } == 1)
    }

    @Test("no release while loads hold bodies under the budget (downloading, the limiter idle); one once they end")
    func busyLoadsHoldTheRelease() async throws {
        let limiter = ConcurrencyLimiter(limit: 1, heavyThreadNice: nil)
        let releases = NIOLockedValueBox(0)
        let busy = NIOLockedValueBox(true)
        let busyChecks = NIOLockedValueBox(0)
        let service = IdleMemoryRelease(
            limiter: limiter,
            busy: {
                busyChecks.withLockedValue { $0 += 1 }
                return busy.withLockedValue { $0 }
            },
            interval: .milliseconds(5)
        ) {
            releases.withLockedValue { $0 += 1 }
        }
        let running = Task { try await service.run() }
        defer { running.cancel() }
        // Busy for several polls with the limiter idle: nothing given back.
        // Counted polls, not a sleep: on a loaded machine (tests run in
        // parallel) the service may not have polled at all after 60 ms.
        var polled = 0
        while busyChecks.withLockedValue({ $0 }) < 5, polled < 2_000 {
            try await Task.sleep(for: .milliseconds(5))
            polled += 1
        }
        #expect(busyChecks.withLockedValue { $0 } >= 5)
        #expect(releases.withLockedValue { $0 } == 0)
        // The loads end: one release within a bounded number of polls.
        busy.withLockedValue { $0 = false }
        var waited = 0
        while releases.withLockedValue({ $0 }) == 0, waited < 400 {
            try await Task.sleep(for: .milliseconds(5))
            waited += 1
        }
        #expect(releases.withLockedValue { $0 } == 1)
    }
}
