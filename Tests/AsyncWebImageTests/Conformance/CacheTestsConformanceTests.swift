import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage

/// The HTTP caching test suite of the HTTP working group's cache editors
/// (cache-tests.fyi), run against the loader in its strict modes
/// (`.strictPrivate`, `.strictShared`: RFC 9111 to the letter) and its
/// default ones (`.private`, `.shared`), and scored as the suite scores
/// browsers and shared caches.
///
/// Every test the loader can express runs against a real loopback origin
/// (``CacheTestOrigin``: the suite's server, with small PNG bodies that say
/// which response a cache used) through a fresh loader with a fresh memory
/// and disk cache (``CacheTestClient``: the suite's client checks). Tests
/// run concurrently, a few dozen at a time, since most of their time is the
/// suite's own three-second pauses.
///
/// The suite's scoring (``CacheTestScoring``): a test whose dependency did
/// not pass has failed; required and optional (`optimal`, `check`) tests are
/// counted apart; each mode is compared with the published results of its
/// peers (browsers for the private modes, shared caches for the shared ones)
/// on the same applicable test ids. The table is printed. The test fails
/// when, in a strict mode, a required test that passed when the baseline was
/// recorded no longer passes; and when a default mode's verdicts differ from
/// its strict mode's on other tests than those recorded in
/// `Fixtures/cache-tests/default-mode-differences.json` — the tests that
/// rely on a cache *not* giving a silent response a lifetime of its own,
/// which the default modes do on purpose (an image loader keeps what it
/// loaded; RFC 9111 §4.2.2 allows it).
///
/// - `AWI_CACHE_TESTS_REPORT=<file>` also writes the table (Markdown) there.
/// - `AWI_CACHE_TESTS_WRITE_BASELINE=<file>` writes the ids passed now, per
///   strict mode, in the form of `Fixtures/cache-tests/baseline.json`.
/// - `AWI_CACHE_TESTS_ONLY=<id>,<id>` runs those tests alone (diagnosis).
@Suite("cache-tests conformance", .timeLimit(.minutes(5)))
struct CacheTestsConformanceTests {
    // MARK: Applicability

    /// Why a test of the suite is not run against the loader. A test is
    /// applicable when every request it makes can be made through the
    /// loader's API and every check it makes can be observed there; the
    /// suite's own selection per kind of cache comes first (`browser_only`,
    /// `browser_skip`, `cdn_only`).
    enum NotApplicable: String, CaseIterable, Sendable {
        /// `request_method` other than GET (`method-POST`, `head-*`, the
        /// `invalidate-*` tests): the loader only ever sends GET, so it never
        /// sees an unsafe method's response (RFC 9111 §4.4 has nothing to
        /// act on) nor a HEAD.
        case method = "the test sends a method other than GET; the loader only sends GET"
        /// A `Range` request or a `206` answer (`partial-*`): the loader asks
        /// for whole images; the ranges it sends itself, to resume a cut
        /// transfer, are tested by `ResumePointTests` and `RetryTests`.
        case range = "the test asks for a byte range; the loader loads whole images"
        /// `If-None-Match` or `If-Modified-Since` set by the client
        /// (`conditional-lm-*`, `conditional-etag-*-respond*`,
        /// `conditional-etag-forward*`): a loader's caller asks for images,
        /// never for a 304, and holds no validators; the loader sends its own
        /// conditional requests, which the `*_validated` tests check.
        case clientConditional = "the client sends its own conditional request and expects a 304 or a forwarded validator"
        /// 1xx interim responses (`interim-*`): libcurl reads them; no loader
        /// caller can see them.
        case interim = "the test checks interim (1xx) responses, which no loader caller sees"
        /// A `Content-Length` among the test's response fields
        /// (`headers-store-Content-Length`, `304-etag-update-response-Content-Length`):
        /// the values are the lengths of the suite's text bodies; with an
        /// image body the origin would send a message whose length lies.
        case contentLength = "the test's Content-Length is the length of its text body, not of an image"
        /// A content or transfer coding that does not exist
        /// (`Content-Encoding: apetixmbqfujync` in `headers-store-Content-Encoding`
        /// and `304-etag-update-response-Content-Encoding`,
        /// `Transfer-Encoding: arizqhypgxofwne` in `headers-store-Transfer-Encoding`):
        /// the body cannot be decoded as the message declares it, and the
        /// loader's HTTP client (libcurl) refuses such a response rather than
        /// guess (RFC 9110 §8.4.1 makes the coding part of the representation;
        /// RFC 9112 §6.3 has a message with both Transfer-Encoding and
        /// Content-Length handled as an error). Browsers pass these by
        /// ignoring the coding; most shared caches fail the Transfer-Encoding one.
        /// This is the loader's choice, not a limit of the harness: run, these
        /// tests fail at their first response.
        case undecodableCoding = "the response declares a content or transfer coding that does not exist; the loader refuses it"
        /// A `204` (no content) or a `3xx` the client should get unfollowed
        /// (`status-204-*`, `status-3xx-*`, `heuristic-204-cached`): neither
        /// is an image, and the loader follows redirects.
        case noImage = "the response is a 204 or an unfollowed 3xx: no image"
        /// A 4xx or 5xx the client is expected to get (`status-4xx/5xx-*`,
        /// `heuristic-4xx/5xx-*`): to an image loader it is an error
        /// (`ImageError.httpStatus`, the status alone); the loader stores no
        /// error response and has no body or header fields of one to show.
        /// (A 5xx answering a revalidation, where the client should get the
        /// stale 200, is applicable: `stale-503`, `stale-sie-503`.)
        case errorStatus = "the client gets a 4xx or 5xx, which a loader reports as an error, not a response"
        /// `cdn_only` (`cdn-*`, CDN-Cache-Control, RFC 9213): the field is
        /// for caches a CDN runs for the origin; the loader in `.shared` mode
        /// is a server's own cache of its upstreams, not a CDN, and ignores
        /// it as RFC 9213 has caches that are not its targets do. (The suite
        /// itself runs these for CDNs and, by its runner's shortcut, for
        /// reverse proxies.)
        case cdn = "CDN-Cache-Control targets CDN caches; the loader is none"
        /// A dependency is not applicable: its premise cannot be shown.
        case dependency = "a test it depends on is not applicable"
    }

    /// Whether the suite runs `test` for a cache of `mode`'s kind (browsers
    /// for the private modes, shared caches for the shared ones).
    static func isSelected(_ test: CacheTestDefinition, mode: ImageLoader.HTTPCacheMode) -> Bool {
        mode.isShared ? !test.browserOnly : !test.cdnOnly && !test.browserSkip
    }

    /// Why `test` is not applicable to the loader (ignoring dependencies), if it is not.
    static func notApplicable(_ test: CacheTestDefinition) -> NotApplicable? {
        let requests = test.requests
        if test.cdnOnly { return .cdn }
        if requests.contains(where: { ($0.method ?? "GET") != "GET" }) { return .method }
        func sends(_ names: Set<String>) -> Bool {
            requests.contains { $0.requestHeaders.contains { names.contains($0.name.lowercased()) } }
        }
        if sends(["range"]) || requests.contains(where: { $0.responseStatus == 206 }) { return .range }
        if sends(["if-none-match", "if-modified-since"]) { return .clientConditional }
        if requests.contains(where: { !$0.otherMembers.isDisjoint(with: ["interim_responses", "expected_interim_responses"]) }) {
            return .interim
        }
        func responds(_ name: String) -> Bool {
            requests.contains { ($0.responseHeaders ?? []).contains { $0.name.lowercased() == name } }
        }
        if responds("content-length") { return .contentLength }
        if responds("content-encoding") || responds("transfer-encoding") { return .undecodableCoding }
        if requests.contains(where: { $0.responseStatus.map { $0 == 204 || (300..<400).contains($0) } ?? false }) {
            return .noImage
        }
        let getsError = requests.contains { request in
            guard let status = request.responseStatus, status >= 400 else { return false }
            if let expected = request.expectedStatus, let expected { return expected >= 400 }
            return true
        }
        if getsError { return .errorStatus }
        return nil
    }

    /// The tests of `mode` and why the others are not applicable, dependencies included.
    static func applicability(_ tests: [CacheTestDefinition], mode: ImageLoader.HTTPCacheMode) -> (applicable: [String], notApplicable: [String: NotApplicable]) {
        let selected = tests.filter { isSelected($0, mode: mode) }
        let selectedIDs = Set(selected.map(\.id))
        var excluded: [String: NotApplicable] = [:]
        for test in selected { if let reason = notApplicable(test) { excluded[test.id] = reason } }
        // Transitively: bounded by the number of tests.
        for _ in 0..<selected.count {
            var changed = false
            for test in selected where excluded[test.id] == nil {
                if test.dependsOn.contains(where: { excluded[$0] != nil || !selectedIDs.contains($0) }) {
                    excluded[test.id] = .dependency
                    changed = true
                }
            }
            if !changed { break }
        }
        return (selected.map(\.id).filter { excluded[$0] == nil }, excluded)
    }

    // MARK: Peers

    /// The published results each kind of cache is compared with: browsers
    /// for the private modes, shared caches for the shared ones.
    static func peers(_ mode: ImageLoader.HTTPCacheMode) -> [(name: String, file: String)] {
        guard mode.isShared else { return [("Chrome", "chrome"), ("Firefox", "firefox"), ("Safari", "safari")] }
        return [
            ("nginx", "nginx"), ("Varnish", "varnish"), ("Squid", "squid"), ("Traffic Server", "trafficserver"),
            ("Apache httpd", "apache"), ("Caddy", "caddy"), ("HAProxy", "haproxy"), ("Fastly", "fastly"),
        ]
    }

    static func modeName(_ mode: ImageLoader.HTTPCacheMode) -> String {
        switch mode {
        case .private: "private"
        case .shared: "shared"
        case .strictPrivate: "strictPrivate"
        case .strictShared: "strictShared"
        case .ignoringHeaders: "ignoringHeaders"
        }
    }

    /// The strict mode of the same kind as `mode`, whose verdicts a default
    /// mode's are compared with; and the key of both in the fixtures
    /// (`baseline.json` holds the strict modes' passes under `private` and `shared`).
    static func kind(_ mode: ImageLoader.HTTPCacheMode) -> (strict: ImageLoader.HTTPCacheMode, key: String) {
        mode.isShared ? (.strictShared, "shared") : (.strictPrivate, "private")
    }

    // MARK: The run

    /// How many tests run at once.
    static let concurrency = 48

    @Test("every applicable test in the four modes; no strict-mode required test that passed before fails; the default modes differ only where recorded")
    func conformance() async throws {
        let definitions = try CacheTestDefinition.load(fixture("cache-tests", "tests.json"))
        let tests = Dictionary(definitions.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let only = ProcessInfo.processInfo.environment["AWI_CACHE_TESTS_ONLY"].map { Set($0.split(separator: ",").map(String.init)) }
        let modes: [ImageLoader.HTTPCacheMode] = [.strictPrivate, .strictShared, .private, .shared]
        var plans: [ImageLoader.HTTPCacheMode: (applicable: [String], notApplicable: [String: NotApplicable])] = [:]
        for mode in modes { plans[mode] = Self.applicability(definitions, mode: mode) }

        let server = LoopbackServer(maxConnections: 1024)
        try server.start()
        defer { server.stop() }
        var curl = CurlDataLoader.Configuration()
        curl.maxConcurrentDownloads = 96
        let dataLoader = CurlDataLoader(configuration: curl)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("awi-cache-tests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }

        var jobs: [(ImageLoader.HTTPCacheMode, CacheTestDefinition)] = []
        for mode in modes {
            for id in plans[mode]?.applicable ?? [] where only?.contains(id) ?? true {
                if let test = tests[id] { jobs.append((mode, test)) }
            }
        }
        let started = ContinuousClock.now
        var results = Dictionary(uniqueKeysWithValues: modes.map { ($0, [String: CacheTestScoring.Result]()) })
        await withTaskGroup(of: (ImageLoader.HTTPCacheMode, String, CacheTestClient.Failure?).self) { group in
            var next = 0
            func launch() {
                let (mode, test) = jobs[next]
                next += 1
                group.addTask {
                    let client = CacheTestClient(test: test, mode: mode, server: server, dataLoader: dataLoader, directory: directory)
                    return (mode, test.id, await client.run())
                }
            }
            while next < min(Self.concurrency, jobs.count) { launch() }
            for await (mode, id, failure) in group {
                results[mode]?[id] = failure.map { .fail(name: $0.isSetup ? "Setup" : "Assertion", message: $0.message) } ?? .pass
                if next < jobs.count { launch() }
            }
        }
        await dataLoader.shutdown()
        let elapsed = ContinuousClock.now - started

        let baseline = try Self.loadBaseline()
        let recordedDifferences = try Self.loadRecordedDifferences()
        var report = "cache-tests: \(jobs.count) runs in \(elapsed.formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 1))))\n"
        var passing: [String: [String]] = [:]
        for mode in modes {
            guard let plan = plans[mode], let ours = results[mode] else { continue }
            let ids = plan.applicable.filter { only?.contains($0) ?? true }
            let (strict, key) = Self.kind(mode)
            guard mode == strict else {
                // A default mode: scored as its kind is, and compared with its strict mode.
                let differences = Self.differences(ids, tests: tests, ours: ours, strict: results[strict] ?? [:])
                report += try Self.report(mode: mode, ids: ids, notApplicable: plan.notApplicable, tests: tests, ours: ours, differences: differences)
                if only == nil {
                    let recorded = Set(recordedDifferences[key] ?? [])
                    #expect(Set(differences.keys) == recorded, "\(Self.modeName(mode)) differs from .\(Self.modeName(strict)) on \(differences.keys.sorted()), recorded \(recorded.sorted())")
                }
                continue
            }
            report += try Self.report(mode: mode, ids: ids, notApplicable: plan.notApplicable, tests: tests, ours: ours)
            let passed = ids.filter { CacheTestScoring.verdict($0, tests: tests, results: ours).passed }
            passing[key] = passed
            // The gate: a required test that passed before passes still.
            for id in baseline[key] ?? [] where ids.contains(id) && tests[id]?.kind == .required {
                let verdict = CacheTestScoring.verdict(id, tests: tests, results: ours)
                #expect(verdict.passed, "\(Self.modeName(mode)): \(id) passed before, now \(verdict.rawValue): \(Self.message(ours[id]))")
            }
        }
        print(report)
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["AWI_CACHE_TESTS_REPORT"] {
            try report.write(toFile: path, atomically: true, encoding: .utf8)
        }
        if let path = environment["AWI_CACHE_TESTS_WRITE_BASELINE"] {
            let data = try JSONSerialization.data(withJSONObject: passing.mapValues { $0.sorted() }, options: [.prettyPrinted, .sortedKeys])
            try data.write(to: URL(fileURLWithPath: path))
        }
    }

    /// The baseline: per mode, the ids that passed when it was recorded.
    static func loadBaseline() throws -> [String: [String]] {
        guard let data = try? fixture("cache-tests", "baseline.json") else { return [:] }
        return try JSONSerialization.jsonObject(with: data) as? [String: [String]] ?? [:]
    }

    /// The tests recorded as passing in a strict mode and not in its default
    /// mode (or the reverse), per kind (`private`, `shared`).
    static func loadRecordedDifferences() throws -> [String: [String]] {
        let data = try fixture("cache-tests", "default-mode-differences.json")
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [:] }
        return object.compactMapValues { $0 as? [String] }
    }

    /// The ids whose own verdict (dependencies not applied: under the
    /// suite's scoring every test that assumes `freshness-none` fails with
    /// it) differs between a default mode (`ours`) and its strict mode, with
    /// the default mode's verdict.
    static func differences(
        _ ids: [String], tests: [String: CacheTestDefinition], ours: [String: CacheTestScoring.Result],
        strict: [String: CacheTestScoring.Result]
    ) -> [String: CacheTestScoring.Verdict] {
        var differing: [String: CacheTestScoring.Verdict] = [:]
        for id in ids {
            let mine = CacheTestScoring.verdict(id, tests: tests, results: ours, honouringDependencies: false)
            let theirs = CacheTestScoring.verdict(id, tests: tests, results: strict, honouringDependencies: false)
            if mine.passed != theirs.passed { differing[id] = mine }
        }
        return differing
    }

    static func message(_ result: CacheTestScoring.Result?) -> String {
        switch result {
        case .pass: "passed"
        case .fail(let name, let message): "\(name): \(message)"
        case nil: "not run"
        }
    }

    /// The Markdown table of one mode: the loader beside its peers on the
    /// same ids, then the loader's tests that did not pass, then the tests
    /// that are not applicable.
    static func report(
        mode: ImageLoader.HTTPCacheMode, ids: [String], notApplicable: [String: NotApplicable], tests: [String: CacheTestDefinition],
        ours: [String: CacheTestScoring.Result], differences: [String: CacheTestScoring.Verdict]? = nil
    ) throws -> String {
        let name = modeName(mode)
        var text = "\n### .\(name): \(ids.count) applicable tests\n\n"
        text += "| | required passed | optional passed |\n|---|---|---|\n"
        func row(_ label: String, _ score: CacheTestScoring.Score) -> String {
            "| \(label) | \(score.requiredPassed)/\(score.requiredTotal) | \(score.optionalPassed)/\(score.optionalTotal) |\n"
        }
        text += row("**AsyncWebImage .\(name)**", CacheTestScoring.score(ids, tests: tests, results: ours))
        if differences != nil {
            // The suite fails every test whose premise the default mode breaks on purpose; each test's own verdict beside it.
            text += row("AsyncWebImage .\(name), each test's own verdict", CacheTestScoring.score(ids, tests: tests, results: ours, honouringDependencies: false))
        }
        for peer in peers(mode) {
            let results = try CacheTestScoring.loadResults(fixture("cache-tests", "results/\(peer.file).json"))
            text += row(peer.name, CacheTestScoring.score(ids, tests: tests, results: results))
        }
        if let differences {
            let strict = modeName(kind(mode).strict)
            let dependent = ids.filter { CacheTestScoring.verdict($0, tests: tests, results: ours) == .dependencyFail }.count
            text += "\nUnder the suite's scoring \(dependent) tests fail only because a test they depend on did (`freshness-none`: "
            text += "the suite assumes a silent response is not reused, which this mode does on purpose).\n"
            text += "\nOwn verdicts different from .\(strict) (\(differences.count)): the default lifetime of a silent response is the point\n\n"
            for (id, verdict) in differences.sorted(by: { $0.key < $1.key }) {
                text += "- `\(id)` (\(tests[id]?.kind.rawValue ?? "?"), \(verdict.rawValue) here): \(tests[id]?.name ?? ""): \(message(ours[id]))\n"
            }
            return text
        }
        let failing = ids.filter { !CacheTestScoring.verdict($0, tests: tests, results: ours).passed }
        if !failing.isEmpty {
            text += "\nNot passed in .\(name):\n\n"
            for id in failing {
                let verdict = CacheTestScoring.verdict(id, tests: tests, results: ours)
                text += "- `\(id)` (\(tests[id]?.kind.rawValue ?? "?"), \(verdict.rawValue)): \(message(ours[id]))\n"
            }
        }
        text += "\nNot applicable in .\(name) (\(notApplicable.count)):\n\n"
        for reason in NotApplicable.allCases {
            let excluded = notApplicable.filter { $0.value == reason }.map(\.key).sorted()
            guard !excluded.isEmpty else { continue }
            text += "- \(reason.rawValue): \(excluded.map { "`\($0)`" }.joined(separator: ", "))\n"
        }
        return text
    }
}
