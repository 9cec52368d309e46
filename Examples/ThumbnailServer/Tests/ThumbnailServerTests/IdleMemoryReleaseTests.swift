import AsyncWebImage
import Dispatch
import Foundation
import NIOConcurrencyHelpers
import Testing
@testable import thumbnail_server

/// The idle release gives memory back once per quiet spell after work, and
/// never while the loader's CPU work runs or waits.
@Suite struct IdleMemoryReleaseTests {
    @Test("no release before any work; none while a CPU job of the loader runs; exactly one after the work ends")
    func oncePerQuietSpell() async throws {
        var configuration = ImageLoader.Configuration(cache: ImageCache(memory: MemoryCache(), disk: nil))
        configuration.cpuLimits = ImageLoader.CPULimits(maxConcurrentWork: 1, heavyThreadNice: nil)
        let loader = ImageLoader(configuration: configuration)
        let releases = NIOLockedValueBox(0)
        let service = IdleMemoryRelease(loader: loader, interval: .milliseconds(5)) {
            releases.withLockedValue { $0 += 1 }
        }
        let running = Task { try await service.run() }
        defer { running.cancel() }

        // Idle from the start: nothing was used, so nothing is given back.
        try await Task.sleep(for: .milliseconds(60))
        #expect(releases.withLockedValue { $0 } == 0)

        // A CPU job of the loader's (an encode of the application's own) held
        // for many polls: still nothing. It blocks its thread, 10 s at most.
        let held = DispatchSemaphore(value: 0)
        let work = Task { try await loader.encode { _ = held.wait(timeout: .now() + 10); return Data() } }
        var polled = 0
        while loader.cpuWorkCount == 0, polled < 2_000 {
            try await Task.sleep(for: .milliseconds(5))
            polled += 1
        }
        #expect(loader.cpuWorkCount == 1)
        try await Task.sleep(for: .milliseconds(60))
        #expect(releases.withLockedValue { $0 } == 0)

        // The work ends: one release within a bounded number of polls, and no second one.
        held.signal()
        _ = try await work.value
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
        let releases = NIOLockedValueBox(0)
        let busy = NIOLockedValueBox(true)
        let busyChecks = NIOLockedValueBox(0)
        let service = IdleMemoryRelease(
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
