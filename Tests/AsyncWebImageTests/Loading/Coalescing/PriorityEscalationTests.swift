import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage

/// Priority follows the task: a shared download waiting for a slot is
/// promoted when a higher-priority task waits on it, or when the waiting
/// task's priority is escalated. Order is read from the server's log.
@Suite("Priority follows the task", .timeLimit(.minutes(1)))
struct PriorityEscalationTests {
    /// A server with a slow `/block` (holding the loader's single slot) and
    /// two small files, a coalescer on a one-slot loader, and `/block` running.
    private func queue() async throws -> (LoopbackServer, CurlDataLoader, DownloadCoalescer, Task<Void, any Error>) {
        let server = try startedServer()
        server.route("/block", .init(body: testBytes(1_000), delayBeforeHead: .milliseconds(400)))
        server.route("/a", .ok(testBytes(1_000, seed: 2)))
        server.route("/b", .ok(testBytes(1_000, seed: 3)))
        var configuration = CurlDataLoader.Configuration()
        configuration.maxConcurrentDownloads = 1
        let loader = CurlDataLoader(configuration: configuration)
        let coalescer = DownloadCoalescer(loader: loader)
        let blockURL = server.url("/block")
        let blocker = Task { _ = try await coalescer.download(DataRequest(url: blockURL)).collect() }
        #expect(await eventually { server.statistics("/block").requests == 1 })
        return (server, loader, coalescer, blocker)
    }

    /// Queues `/b` (normal) then `/a` (low) behind the blocker.
    private func enqueue(_ server: LoopbackServer, _ loader: CurlDataLoader, _ coalescer: DownloadCoalescer)
        async -> (a: Task<Void, any Error>, b: Task<Void, any Error>) {
        let (aURL, bURL) = (server.url("/a"), server.url("/b"))
        let b = Task { _ = try await coalescer.download(DataRequest(url: bURL)).collect() }
        #expect(await eventually { loader.outstandingTransfers == 2 })
        let a = Task(priority: .medium) { _ = try await coalescer.download(DataRequest(url: aURL, priority: .low)).collect() }
        #expect(await eventually { loader.outstandingTransfers == 3 })
        return (a, b)
    }

    private func order(_ server: LoopbackServer) -> [String] {
        server.requestLog.filter { ["/a", "/b", "/block"].contains($0) }
    }

    @Test("baseline: with no promotion the low-priority download waits behind the normal one")
    func baseline() async throws {
        let (server, loader, coalescer, blocker) = try await queue()
        defer { server.stop() }
        let (a, b) = await enqueue(server, loader, coalescer)
        try await blocker.value
        try await a.value
        try await b.value
        #expect(order(server) == ["/block", "/b", "/a"])
    }

    @Test("a high-priority task joining the queued low-priority download moves it ahead")
    func highPriorityJoinPromotes() async throws {
        let (server, loader, coalescer, blocker) = try await queue()
        defer { server.stop() }
        let (a, b) = await enqueue(server, loader, coalescer)
        let aURL = server.url("/a")
        let urgent = Task(priority: .high) { _ = try await coalescer.download(DataRequest(url: aURL, priority: .low)).collect() }
        #expect(await eventually { await coalescer.subscriberCount(for: DataRequest(url: aURL)) == 2 })
        try await blocker.value
        try await a.value
        try await b.value
        try await urgent.value
        #expect(order(server) == ["/block", "/a", "/b"])
        #expect(server.statistics("/a").requests == 1)
    }

    @Test("escalating the waiting task's priority (withTaskPriorityEscalationHandler) promotes its queued download")
    func escalationPromotes() async throws {
        let (server, loader, coalescer, blocker) = try await queue()
        defer { server.stop() }
        let (a, b) = await enqueue(server, loader, coalescer)
        // When the task waiting on /a is escalated, as awaiting it from a high-priority task does
        a.escalatePriority(to: .high)
        try await blocker.value
        try await a.value
        try await b.value
        #expect(order(server) == ["/block", "/a", "/b"])
    }
}
