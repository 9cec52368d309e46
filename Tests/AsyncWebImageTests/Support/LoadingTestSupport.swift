import Foundation
import LoopbackServer
@testable import AsyncWebImage

/// What a whole transfer produced.
struct CollectedTransfer {
    var head: HTTPResponseHead?
    var body = Data()
    var chunks = 0
}

extension DataRequest.Transfer {
    /// Reads the transfer to its end.
    func collect() async throws -> CollectedTransfer {
        var result = CollectedTransfer()
        for try await event in self {
            switch event {
            case .head(let head): result.head = head
            case .chunk(let data):
                result.body.append(data)
                result.chunks += 1
            }
        }
        return result
    }
}

/// Deterministic pseudo-random bytes, different for every seed.
func testBytes(_ count: Int, seed: UInt64 = 1) -> Data {
    var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    var bytes = [UInt8](repeating: 0, count: count)
    for index in 0..<count {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        bytes[index] = UInt8(truncatingIfNeeded: state)
    }
    return Data(bytes)
}

/// A started server, stopped by the caller (`defer { server.stop() }`).
func startedServer() throws -> LoopbackServer {
    let server = LoopbackServer()
    try server.start()
    return server
}

/// What one subscriber of a coalesced download saw.
struct CollectedDownload {
    var head: HTTPResponseHead?
    var chunks = Data()
    var completed: Data?
    var progress: [Int64] = []
    var events: [String] = []
}

extension DownloadEvents {
    /// Reads one subscriber's events to the end.
    func collect() async throws -> CollectedDownload {
        var result = CollectedDownload()
        for try await event in self {
            switch event {
            case .head(let head):
                // A second head restarts the body (DownloadEvent).
                if result.head != nil { result.chunks = Data() }
                result.head = head
                result.events.append("head")
            case .chunk(let data, let accumulated):
                result.chunks.append(data)
                precondition(accumulated.count == result.chunks.count)
                result.events.append("chunk")
            case .progress(let received, _):
                result.progress.append(received)
                result.events.append("progress")
            case .completed(let data):
                result.completed = data
                result.events.append("completed")
            }
        }
        return result
    }
}

/// A trickled body: `count` bytes in `pieces` pieces, `interval` apart.
func trickled(_ body: Data, pieces: Int, every interval: Duration, contentType: String = "image/jpeg") -> LoopbackServer.Response {
    // As `LoopbackServer.Response.ok`: nothing about caching, as a plain file server answers.
    LoopbackServer.Response(
        headers: [("Content-Type", contentType)],
        body: body,
        trickle: .init(bytesPerPiece: (body.count + pieces - 1) / pieces, interval: interval)
    )
}

/// Holds server handlers until the test opens it (bounded: 10 s at most,
/// scaled by ``testTimeScale``, so a forgotten gate cannot hang the server).
final class Gate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)

    /// Blocks the calling (server) thread until opened.
    func wait() {
        _ = semaphore.wait(timeout: .now() + .seconds(10 * testTimeScale))
    }

    /// Lets `count` waiters through.
    func open(_ count: Int) {
        for _ in 0..<count { semaphore.signal() }
    }
}

extension LoopbackServer {
    /// Routes `path` to `response`, sent only after `gate` lets the request through.
    func route(_ path: String, gatedBy gate: Gate, _ response: Response) {
        route(path) { _ in
            gate.wait()
            return response
        }
    }
}
