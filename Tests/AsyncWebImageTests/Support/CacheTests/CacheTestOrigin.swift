import Foundation
import LoopbackServer
import Synchronization
import AWILocking
@testable import AsyncWebImage

/// The origin server of one cache-tests test, on a real ``LoopbackServer``:
/// what the suite's `test-engine/server/handle-test.mjs` does, with one
/// difference — every body is a small PNG that says which request of the
/// test it answered (its width is the server's request number), so the
/// client can see which stored response the cache used.
///
/// Per request it picks the test's request configuration by the client's
/// `Req-Num` header, answers `304` to a conditional request the test expects
/// to be validated (status `999` when the request was not conditional),
/// sends the configured status and header fields with dates made relative
/// to its clock, plus `Server-Request-Count`, `Client-Request-Count`,
/// `Server-Now`, `Server-Base-Url` and `Request-Numbers`, records what it saw,
/// and either drops the connection (`disconnect`) or sends the body.
final class CacheTestOrigin: Sendable {
    /// What the server saw of one request and sent back (the suite's "server state").
    struct Seen: Sendable {
        /// The client's `Req-Num` (the test's request it was).
        var requestNumber: Int?
        var method: String
        /// Header fields as received: lower-cased names, repeated lines joined with ", ".
        var requestHeaders: [String: String]
        /// The configured response fields the client checks, with the values sent
        /// (repeated names as several values).
        var responseHeaders: [(name: String, values: [String])]
    }

    private struct State {
        var seen: [Seen] = []
        /// The header values sent for each request configuration, by its
        /// index: a validated request compares its validators with these.
        var sent: [Int: [(name: String, value: String)]] = [:]
    }

    let test: CacheTestDefinition
    /// The test's identifier in URLs, and the text of its default body.
    let uuid: String
    private let state = Lock(State())

    init(test: CacheTestDefinition, uuid: String) {
        self.test = test
        self.uuid = uuid
    }

    /// The paths this test's requests use (`/test/<uuid>` and its filenames).
    var paths: Set<String> {
        Set(test.requests.map { "/test/\(uuid)" + ($0.filename.map { "/\($0)" } ?? "") })
    }

    /// What the server saw so far.
    var seen: [Seen] { state.withLock { $0.seen } }

    /// The text the suite's server would have sent as the body of the
    /// server's `number`-th request (its configured `response_body`, or the
    /// uuid): what a client check on the body compares.
    func bodyText(ofServerRequest number: Int) -> String? {
        let seen = state.withLock { $0.seen }
        guard number >= 1, number <= seen.count else { return nil }
        let index = (seen[number - 1].requestNumber ?? number) - 1
        guard test.requests.indices.contains(index) else { return nil }
        return (test.requests[index].responseBody ?? nil) ?? uuid
    }

    /// The PNG body of the server's `number`-th request: `number` pixels
    /// wide, one high.
    static func body(forServerRequest number: Int) -> Data {
        Bodies.png(width: number)
    }

    /// Answers one request (on the server's connection thread).
    func respond(to request: LoopbackServer.Request) -> LoopbackServer.Response {
        let clientNumber = request[header: "Req-Num"].flatMap { Int($0) }
        let serverNumber = state.withLock { $0.seen.count + 1 }
        let number = clientNumber ?? serverNumber
        guard test.requests.indices.contains(number - 1) else {
            return .init(status: 409, headers: [("Content-Type", "text/plain")], body: Data("no configuration \(number)".utf8))
        }
        let config = test.requests[number - 1]
        if let pause = config.responsePause {
            // The suite pauses before it computes the response (its dates included).
            Thread.sleep(forTimeInterval: Double(pause))
        }
        return answer(request, config: config, index: number - 1, clientNumber: clientNumber)
    }

    private func answer(
        _ request: LoopbackServer.Request, config: CacheTestDefinition.Request, index: Int, clientNumber: Int?
    ) -> LoopbackServer.Response {
        let now = Date()
        let serverNow = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
        var status = config.responseStatus ?? 200
        if let type = config.expectedType, type.hasSuffix("validated") {
            // The previous configuration's validators: as sent when it was
            // served (its dates made absolute then), else as configured —
            // the suite reads them from the configuration, which its server
            // rewrites in place when it serves it.
            let configured: [(name: String, value: String)] = (test.requests[index - 1].responseHeaders ?? []).map {
                ($0.name, Self.fixup(.init(name: $0.name, value: $0.value, checked: false), serverNow: nil))
            }
            let previous = state.withLock { $0.sent[index - 1] } ?? configured
            func previousValue(_ name: String) -> String? { previous.first { $0.name.lowercased() == name }?.value }
            var validated = false
            if let lastModified = previousValue("last-modified"), request[header: "If-Modified-Since"] == lastModified { validated = true }
            if let etag = previousValue("etag"), request[header: "If-None-Match"] == etag { validated = true }
            status = validated ? 304 : 999
        }
        var headers: [(name: String, value: String)] = [
            ("Server-Base-Url", request.target),
            ("Server-Request-Count", ""),
            ("Client-Request-Count", clientNumber.map(String.init) ?? "NaN"),
            ("Server-Now", String(serverNow)),
        ]
        var saved: [(name: String, values: [String])] = []
        var sent: [(name: String, value: String)] = []
        for field in config.responseHeaders ?? [] {
            let value = Self.fixup(field, serverNow: serverNow)
            headers.append((field.name, value))
            sent.append((field.name, value))
            if field.checked {
                if let existing = saved.firstIndex(where: { $0.name.lowercased() == field.name.lowercased() }) {
                    saved[existing].values.append(value)
                } else {
                    saved.append((field.name, [value]))
                }
            }
        }
        if !headers.contains(where: { $0.name.lowercased() == "content-type" }) {
            headers.append(("Content-Type", "image/png"))
        }
        let seen = Seen(requestNumber: clientNumber, method: request.method, requestHeaders: request.headers, responseHeaders: saved)
        let (serverNumber, requestNumbers) = state.withLock { state -> (Int, String) in
            state.seen.append(seen)
            state.sent[index] = sent
            return (state.seen.count, state.seen.map { $0.requestNumber.map(String.init) ?? "NaN" }.joined(separator: " "))
        }
        headers[1].value = String(serverNumber)
        headers.append(("Request-Numbers", requestNumbers))
        if config.disconnect {
            // Nothing at all: the server closes the connection after reading the request.
            return LoopbackServer.Response(fault: .raw(Data()))
        }
        let body = status == 204 || status == 304 || request.method == "HEAD" ? Data() : Self.body(forServerRequest: serverNumber)
        return LoopbackServer.Response(status: status, headers: headers, body: body)
    }

    /// A configured field's value as sent: a number for a date field is
    /// seconds from the server's now, formatted as an IMF-fixdate (the
    /// suite's `fixupHeader`).
    /// - Parameter serverNow: The server's now in milliseconds; nil leaves numbers as they are.
    static func fixup(_ field: CacheTestDefinition.Field, serverNow: Int64?) -> String {
        switch field.value {
        case .text(let text): return text
        case .number(let seconds):
            guard let serverNow, dateFields.contains(field.name.lowercased()) else { return String(seconds) }
            return httpDate(serverNow: serverNow, delta: seconds)
        }
    }

    /// The header fields whose numeric values are dates.
    static let dateFields: Set<String> = ["date", "expires", "last-modified", "if-modified-since", "if-unmodified-since"]

    /// `serverNow` (milliseconds) plus `delta` seconds, as an IMF-fixdate.
    static func httpDate(serverNow: Int64, delta: Int) -> String {
        HTTPDate.format(Date(timeIntervalSince1970: Double(serverNow + Int64(delta) * 1000) / 1000))
    }

    /// The PNG bodies. Made per request rather than kept: they are a few
    /// dozen bytes each, and Data kept in a process-wide table until exit is
    /// what LeakSanitizer misreads as leaked (Swift stores enum tags in the
    /// spare bits of Data's storage pointer, so the scan does not see it).
    private enum Bodies {
        static func png(width: Int) -> Data {
            // Gray, one row: the width is what identifies the response.
            // The sizes are valid by construction; the PNG encoder cannot fail on them.
            let image = try! Image(width: width, height: 1, pixelFormat: .gray8, pixels: [UInt8](repeating: 128, count: width))
            return try! PNGCoder().encode(image, as: .png, quality: 1)
        }
    }
}
