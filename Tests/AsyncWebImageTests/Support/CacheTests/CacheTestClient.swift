import Foundation
import HTTPTypes
import LoopbackServer
@testable import AsyncWebImage

/// Runs one cache-tests test against a fresh ``ImageLoader`` in one cache
/// mode, and checks it as the suite's client (`test-engine/client/test.mjs`)
/// does.
///
/// The loader is the client's cache: each request of the test is one
/// `image(_:options:context:)` call, with the test's request header fields
/// (and the suite's `Req-Num`) added by a request modifier and left out of
/// the cache key (the suite's caches key on the URL alone; `Vary` does the
/// rest). What the suite reads of a fetch response it reads here of the
/// loader's answer:
/// - the status and header fields: ``ImageResponse/head``, as the cache returns them;
/// - the body: the image, whose width says which of the origin's responses
///   it is, compared as the suite compares body text (by the text that
///   response would have carried);
/// - a thrown ``ImageError/httpStatus(_:)``: a response with that status, no
///   fields and no body; any other error: a response with no status, no
///   fields and no body — what a gateway's error answer is to the suite
///   (no `Server-Request-Count`), the loader's way of not serving a response.
struct CacheTestClient: Sendable {
    /// A check that failed: `Setup` when it is one the test counts as set-up,
    /// else `Assertion` (the suite's error names).
    struct Failure: Error, Sendable, CustomStringConvertible {
        var isSetup: Bool
        var message: String
        var description: String { "\(isSetup ? "Setup" : "Assertion"): \(message)" }
    }

    /// What the loader answered to one request.
    struct Answer: Sendable {
        var status: Int?
        var headers: HTTPFields
        /// The server request number the image's width names.
        var bodyNumber: Int?
        var error: ImageError?
    }

    /// The suite's pause after a request with `pause_after`.
    static let pause: Duration = .seconds(3)

    let test: CacheTestDefinition
    let mode: ImageLoader.HTTPCacheMode
    let server: LoopbackServer
    let dataLoader: CurlDataLoader
    let directory: URL

    /// Runs the test; nil when it passed, else why it failed.
    func run() async -> Failure? {
        let uuid = UUID().uuidString.lowercased()
        let origin = CacheTestOrigin(test: test, uuid: uuid)
        for path in origin.paths {
            server.route(path) { origin.respond(to: $0) }
        }
        let cacheDirectory = directory.appendingPathComponent(uuid)
        defer { try? FileManager.default.removeItem(at: cacheDirectory) }
        let cache = ImageCache(memory: MemoryCache(), disk: DiskStore(directory: cacheDirectory))
        var configuration = ImageLoader.Configuration(cache: cache)
        configuration.dataLoader = dataLoader
        configuration.httpCacheMode = mode
        // Not `loader.shutdown()`: it would stop the data loader all tests share.
        let failure = await run(ImageLoader(configuration: configuration), origin: origin)
        await cache.shutdown()
        return failure
    }

    private func run(_ loader: ImageLoader, origin: CacheTestOrigin) async -> Failure? {
        var answers: [Answer] = []
        do {
            for (index, request) in test.requests.enumerated() {
                let answer = await send(index, request, origin: origin, loader: loader, previous: answers.last)
                answers.append(answer)
                try check(answer, index: index, origin: origin)
                if request.pauseAfter { try? await Task.sleep(for: Self.pause) }
            }
            try checkServerRequests(answers, seen: origin.seen)
            return nil
        } catch let failure as Failure {
            return failure
        } catch {
            return Failure(isSetup: false, message: "\(error)")
        }
    }

    /// The header names the test's requests send, which stay out of the cache key.
    private var requestFieldNames: Set<HTTPField.Name> {
        var names: Set<HTTPField.Name> = [Self.requestNumber]
        for request in test.requests {
            for field in request.requestHeaders { if let name = HTTPField.Name(field.name) { names.insert(name) } }
        }
        return names
    }

    private static let requestNumber = HTTPField.Name("Req-Num")!

    private func send(
        _ index: Int, _ request: CacheTestDefinition.Request, origin: CacheTestOrigin, loader: ImageLoader, previous: Answer?
    ) async -> Answer {
        var fields = HTTPFields()
        for field in request.requestHeaders {
            guard let name = HTTPField.Name(field.name) else { continue }
            var value: String
            switch field.value {
            case .text(let text): value = text
            case .number(let number): value = String(number)
            }
            if request.magicIMS, name == .ifModifiedSince, case .number(let delta) = field.value,
               let now = previous?.headers[HTTPField.Name("Server-Now")!].flatMap({ Int64($0) }) {
                value = CacheTestOrigin.httpDate(serverNow: now, delta: delta)
            }
            fields.append(HTTPField(name: name, value: value))
        }
        fields.append(HTTPField(name: Self.requestNumber, value: String(index + 1)))
        var context = ImageContext()
        context.requestModifier = RequestModifier.headers(fields)
        context.cacheKeyFilter = CacheKeyFilter(ignoringHeaders: requestFieldNames)
        var options: ImageOptions = []
        // Fetch's "no-cache" mode: revalidate what is stored, as `.refreshCached` does.
        if request.cacheMode == "no-cache" { options.insert(.refreshCached) }
        var path = "/test/\(origin.uuid)"
        if let filename = request.filename { path += "/\(filename)" }
        if let query = request.queryArg { path += "?\(query)" }
        do {
            let response = try await loader.response(server.url(path), options: options, context: context)
            let head = response.head
            return Answer(status: head?.statusCode, headers: head?.headers ?? [:], bodyNumber: response.image.width)
        } catch let error as ImageError {
            if case .httpStatus(let status) = error { return Answer(status: status, headers: [:], error: error) }
            return Answer(headers: [:], error: error)
        } catch {
            return Answer(headers: [:], error: .invalidImage("\(error)"))
        }
    }

    private func assert(_ isSetup: Bool, _ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw Failure(isSetup: isSetup, message: message()) }
    }

    /// The suite's `checkResponse`.
    private func check(_ answer: Answer, index: Int, origin: CacheTestOrigin) throws {
        let config = test.requests[index]
        let number = index + 1
        let serverCount = answer.headers[HTTPField.Name("Server-Request-Count")!].flatMap { Int($0) }
        if let numbers = answer.headers[HTTPField.Name("Request-Numbers")!] {
            let list = numbers.split(separator: " ").map(String.init)
            try assert(true, list.count == Set(list).count, "retry")
        }
        if let type = config.expectedType {
            let setup = config.isSetup("expected_type")
            if type == "cached", !(answer.status == 304 && serverCount == nil) {
                try assert(setup, (serverCount ?? .max) < number, "Response \(number) does not come from cache")
            }
            if type == "not_cached" {
                try assert(setup, serverCount == number, "Response \(number) comes from cache")
            }
        }
        if let expected = config.expectedStatus {
            if let expected {
                try assert(config.isSetup("expected_status"), answer.status == expected,
                           "Response \(number) status is \(Self.describe(answer)), not \(expected)")
            }
        } else if let status = config.responseStatus {
            try assert(true, answer.status == status, "Response \(number) status is \(Self.describe(answer)), not \(status)")
        } else if answer.status == 999 {
            try assert(config.isSetup("expected_type"), false, "Request \(number) should have been conditional, but it was not.")
        } else {
            try assert(true, answer.status == 200, "Response \(number) status is \(Self.describe(answer)), not 200")
        }
        let serverNow = answer.headers[HTTPField.Name("Server-Now")!].flatMap { Int64($0) } ?? 0
        for expected in config.expectedResponseHeaders ?? [] {
            let setup = config.isSetup("expected_response_headers")
            switch expected {
            case .present(let name):
                try assert(setup, Self.value(name, in: answer) != nil, "Response \(number) \(name) header not present.")
            case .equals(let name, let other):
                try assert(setup, Self.value(name, in: answer) != nil, "Response \(number) \(name) header not present.")
                try assert(setup, Self.value(name, in: answer) == Self.value(other, in: answer),
                           "Response \(number) header \(name) is \(Self.value(name, in: answer) ?? "null"), should match \(other)")
            case .greaterThan(let name, let bound):
                try assert(setup, Self.value(name, in: answer) != nil, "Response \(number) \(name) header not present.")
                let value = Self.value(name, in: answer).flatMap { Int($0.prefix { $0.isNumber || $0 == "-" }) }
                try assert(setup, (value ?? .min) > bound,
                           "Response \(number) header \(name) is \(Self.value(name, in: answer) ?? "null"), should be bigger than \(bound)")
            case .value(let name, let value):
                let expectedValue = CacheTestOrigin.fixup(.init(name: name, value: value, checked: true), serverNow: serverNow)
                try assert(setup, Self.value(name, in: answer) == expectedValue,
                           "Response \(number) header \(name) is \"\(Self.value(name, in: answer) ?? "null")\", not \"\(expectedValue)\"")
            }
        }
        for missing in config.expectedResponseHeadersMissing ?? [] {
            // The suite's [name, value] form reads the value as a property of
            // its Headers object, which is never set: that form never fails.
            // It is kept as the suite runs it, for the same verdicts.
            guard case .name(let name) = missing else { continue }
            try assert(config.isSetup("expected_response_headers_missing"), Self.value(name, in: answer) == nil,
                       "Response \(number) includes unexpected header \(name): \"\(Self.value(name, in: answer) ?? "")\"")
        }
        try checkBody(answer, config: config, origin: origin, number: number)
    }

    /// The suite's `checkResponseBody`, on the body's identity: the text the
    /// origin's response that carried this image would have had.
    private func checkBody(_ answer: Answer, config: CacheTestDefinition.Request, origin: CacheTestOrigin, number: Int) throws {
        if config.checkBody == false { return }
        let received = answer.bodyNumber.flatMap { origin.bodyText(ofServerRequest: $0) } ?? ""
        if let expected = config.expectedResponseText {
            if let expected {
                try assert(config.isSetup("expected_response_text"), received == expected,
                           "Response body is \"\(received)\", not \"\(expected)\"")
            }
        } else if let body = config.responseBody, let body {
            try assert(true, received == body, "Response body is \"\(received)\", not \"\(body)\"")
        } else if let status = answer.status, status != 204, status != 304, config.method != "HEAD" {
            try assert(true, received == origin.uuid, "Response body is \"\(received)\", not the test's uuid")
        } else if answer.status == nil, config.method != "HEAD" {
            // No response at all: no body, where the suite expects one.
            try assert(true, false, "Response \(number) has no body (\(answer.error.map { "\($0)" } ?? "no answer"))")
        }
    }

    /// The suite's `checkServerRequests`: what the origin saw, request by request.
    ///
    /// First, stricter than the suite: no request of the test reached the
    /// origin twice. The suite sees a re-sent request only in the
    /// `Request-Numbers` of a response the client gets; a cache that re-sends
    /// a request the origin dropped, then serves a stored response, would
    /// hide it. Counted as the suite counts a retry it sees (a set-up failure).
    private func checkServerRequests(_ answers: [Answer], seen: [CacheTestOrigin.Seen]) throws {
        let numbers = seen.compactMap(\.requestNumber)
        for number in Set(numbers) {
            let count = numbers.filter { $0 == number }.count
            try assert(true, count == 1, "retry: the origin saw request \(number) \(count) times")
        }
        var serverIndex = 0
        for (index, config) in test.requests.enumerated() {
            let number = index + 1
            let setup = config.isSetup("expected_type")
            let serverRequest = seen.indices.contains(serverIndex) ? seen[serverIndex] : nil
            var validating: [String] = []
            if let type = config.expectedType {
                if type == "cached" { continue }
                if type == "not_cached" {
                    try assert(setup, serverRequest?.requestNumber == number,
                               "Response \(number) comes from cache (\(serverRequest?.requestNumber.map(String.init) ?? "none") on server)")
                }
                if type == "etag_validated" { validating.append("if-none-match") }
                if type == "lm_validated" { validating.append("if-modified-since") }
            }
            serverIndex += 1
            for header in validating {
                try assert(setup, serverRequest != nil, "request \(number) wasn't sent to server")
                try assert(setup, serverRequest?.requestHeaders[header] != nil, "request \(number) doesn't have \(header) header")
            }
            for expected in config.expectedRequestHeaders ?? [] {
                let present = config.isSetup("expected_request_headers")
                switch expected {
                case .name(let name):
                    try assert(present, serverRequest?.requestHeaders[name.lowercased()] != nil, "Request \(number) \(name) header not present.")
                case .value(let name, let value):
                    let received = serverRequest?.requestHeaders[name.lowercased()]
                    try assert(present, received == value, "Request \(number) header \(name) is \"\(received ?? "undefined")\", not \"\(value)\"")
                }
            }
            for missing in config.expectedRequestHeadersMissing ?? [] {
                let setupMissing = config.isSetup("expected_request_headers_missing")
                switch missing {
                case .name(let name):
                    try assert(setupMissing, serverRequest?.requestHeaders[name.lowercased()] == nil, "Request \(number) \(name) header present.")
                case .value(let name, let value):
                    try assert(setupMissing, serverRequest?.requestHeaders[name.lowercased()] != value, "Request \(number) header \(name) is \"\(value)\"")
                }
            }
            if let serverRequest, answers.indices.contains(index) {
                for (name, values) in serverRequest.responseHeaders where name.lowercased() != "date" {
                    let received = Self.value(name, in: answers[index])
                    let sent = values.joined(separator: ", ")
                    try assert(true, received == sent, "Response \(number) header \(name) is \"\(received ?? "null")\", not \"\(sent)\"")
                }
            }
            if let method = config.expectedMethod {
                try assert(config.isSetup("expected_method"), serverRequest?.method == method,
                           "Request \(number) had method \(serverRequest?.method ?? "none"), not \(method)")
            }
        }
    }

    /// A field as Fetch's `Headers.get` reads it: every line joined with ", ".
    private static func value(_ name: String, in answer: Answer) -> String? {
        guard let field = HTTPField.Name(name) else { return nil }
        let values = answer.headers[values: field]
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    private static func describe(_ answer: Answer) -> String {
        if let status = answer.status { return String(status) }
        return "no response (\(answer.error.map { "\($0)" } ?? "none"))"
    }
}
