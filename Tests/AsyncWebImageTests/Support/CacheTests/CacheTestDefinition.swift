import Foundation

/// One test of the cache-tests suite as `tests.json` defines it: the
/// fields the harness reads, with the suite's meaning (see the suite's
/// `testsuite-schema.json` and its `test-engine`).
struct CacheTestDefinition: Sendable {
    /// The suite's kinds: a `required` test is a MUST of RFC 9111; `optimal`
    /// and `check` are optional (a better cache passes them; a check only
    /// describes behaviour).
    enum Kind: String, Sendable {
        case required, optimal, check
    }

    /// A header value as a test writes it: text, or a number of seconds
    /// from the server's now (date fields) or a plain number.
    enum FieldValue: Sendable, Hashable {
        case text(String)
        case number(Int)
    }

    /// A header field of a test: name, value, and whether the client checks
    /// it was received (`false` as the third member says not).
    struct Field: Sendable, Hashable {
        var name: String
        var value: FieldValue
        var checked: Bool
    }

    /// An entry of `expected_response_headers`.
    enum ExpectedField: Sendable, Hashable {
        /// The field is present.
        case present(String)
        /// The field has this value (dates relative to the response's `Server-Now`).
        case value(String, FieldValue)
        /// The field equals another field.
        case equals(String, String)
        /// The field's integer value is greater than this.
        case greaterThan(String, Int)
    }

    /// An entry of `expected_response_headers_missing` or `expected_request_headers(_missing)`.
    enum NamedField: Sendable, Hashable {
        case name(String)
        case value(String, String)
    }

    /// One request of a test and what is expected of it.
    struct Request: Sendable {
        var method: String?
        var requestHeaders: [Field] = []
        var magicIMS = false
        var queryArg: String?
        var filename: String?
        var cacheMode: String?
        var pauseAfter = false
        var disconnect = false
        var responsePause: Int?
        var responseStatus: Int?
        var responseHeaders: [Field]?
        /// `response_body`: `.some(nil)` is an explicit null (no check, body the test id's uuid).
        var responseBody: String??
        var checkBody: Bool?
        var expectedType: String?
        var expectedStatus: Int??
        var expectedRequestHeaders: [NamedField]?
        var expectedRequestHeadersMissing: [NamedField]?
        var expectedResponseHeaders: [ExpectedField]?
        var expectedResponseHeadersMissing: [NamedField]?
        var expectedResponseText: String??
        var expectedMethod: String?
        var setup = false
        var setupTests: [String] = []
        /// Members the harness does not model (interim responses, request
        /// bodies, magic locations, RFC 850 dates): their presence makes a
        /// test not applicable (see the conformance test).
        var otherMembers: Set<String> = []

        /// The suite's `setupCheck`: whether a failure of `member` counts as set-up.
        func isSetup(_ member: String) -> Bool { setup || setupTests.contains(member) }
    }

    var id: String
    var name: String
    var kind: Kind
    var dependsOn: [String]
    var browserOnly: Bool
    var cdnOnly: Bool
    var browserSkip: Bool
    var requests: [Request]
    /// The id of the suite's file the test is in (`cc-freshness`, `vary`, ...).
    var file: String

    /// Every test of `tests.json`, in the suite's order.
    static func load(_ data: Data) throws -> [CacheTestDefinition] {
        guard let files = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
            throw ParseError(description: "tests.json is not a list of files")
        }
        var tests: [CacheTestDefinition] = []
        for file in files {
            let fileID = file["id"] as? String ?? "?"
            for raw in file["tests"] as? [[String: Any]] ?? [] {
                tests.append(try CacheTestDefinition(raw, file: fileID))
            }
        }
        return tests
    }

    struct ParseError: Error, CustomStringConvertible {
        var description: String
    }

    private init(_ raw: [String: Any], file: String) throws {
        guard let id = raw["id"] as? String else { throw ParseError(description: "a test without id") }
        self.id = id
        self.file = file
        name = raw["name"] as? String ?? id
        kind = (raw["kind"] as? String).flatMap(Kind.init(rawValue:)) ?? .required
        dependsOn = raw["depends_on"] as? [String] ?? []
        browserOnly = raw["browser_only"] as? Bool ?? false
        cdnOnly = raw["cdn_only"] as? Bool ?? false
        browserSkip = raw["browser_skip"] as? Bool ?? false
        requests = try (raw["requests"] as? [[String: Any]] ?? []).map { try Self.request($0, test: id) }
    }

    private static let modelled: Set<String> = [
        "request_method", "request_headers", "magic_ims", "query_arg", "filename", "cache", "pause_after", "disconnect",
        "response_pause", "response_status", "response_headers", "response_body", "check_body", "expected_type",
        "expected_status", "expected_request_headers", "expected_request_headers_missing", "expected_response_headers",
        "expected_response_headers_missing", "expected_response_text", "expected_method", "setup", "setup_tests",
    ]

    private static func request(_ raw: [String: Any], test: String) throws -> Request {
        var request = Request()
        request.method = raw["request_method"] as? String
        request.requestHeaders = try fields(raw["request_headers"], test: test)
        request.magicIMS = raw["magic_ims"] as? Bool ?? false
        request.queryArg = raw["query_arg"] as? String
        request.filename = raw["filename"] as? String
        request.cacheMode = raw["cache"] as? String
        request.pauseAfter = raw["pause_after"] as? Bool ?? false
        request.disconnect = raw["disconnect"] as? Bool ?? false
        request.responsePause = raw["response_pause"] as? Int
        request.responseStatus = (raw["response_status"] as? [Any])?.first as? Int
        if raw["response_headers"] != nil { request.responseHeaders = try fields(raw["response_headers"], test: test) }
        if let body = raw["response_body"] { request.responseBody = .some(body as? String) }
        request.checkBody = raw["check_body"] as? Bool
        request.expectedType = raw["expected_type"] as? String
        if let status = raw["expected_status"] { request.expectedStatus = .some(status as? Int) }
        request.expectedRequestHeaders = (raw["expected_request_headers"] as? [Any]).map(namedFields)
        request.expectedRequestHeadersMissing = (raw["expected_request_headers_missing"] as? [Any]).map(namedFields)
        request.expectedResponseHeadersMissing = (raw["expected_response_headers_missing"] as? [Any]).map(namedFields)
        if let expected = raw["expected_response_headers"] as? [Any] {
            request.expectedResponseHeaders = try expected.map { try expectedField($0, test: test) }
        }
        if let text = raw["expected_response_text"] { request.expectedResponseText = .some(text as? String) }
        request.expectedMethod = raw["expected_method"] as? String
        request.setup = raw["setup"] as? Bool ?? false
        request.setupTests = raw["setup_tests"] as? [String] ?? []
        request.otherMembers = Set(raw.keys).subtracting(modelled)
        return request
    }

    private static func value(_ raw: Any?) -> FieldValue? {
        if let text = raw as? String { return .text(text) }
        if let number = raw as? Int { return .number(number) }
        return nil
    }

    private static func fields(_ raw: Any?, test: String) throws -> [Field] {
        guard let list = raw as? [[Any]] else { return [] }
        return try list.map { entry in
            guard entry.count >= 2, let name = entry[0] as? String, let value = value(entry[1]) else {
                throw ParseError(description: "\(test): a header field that is not [name, value]")
            }
            return Field(name: name, value: value, checked: entry.count < 3 || (entry[2] as? Bool ?? true))
        }
    }

    private static func namedFields(_ raw: [Any]) -> [NamedField] {
        raw.compactMap { entry in
            if let name = entry as? String { return .name(name) }
            if let pair = entry as? [Any], pair.count >= 2, let name = pair[0] as? String, let value = pair[1] as? String {
                return .value(name, value)
            }
            return nil
        }
    }

    private static func expectedField(_ raw: Any, test: String) throws -> ExpectedField {
        if let name = raw as? String { return .present(name) }
        guard let entry = raw as? [Any], entry.count >= 2, let name = entry[0] as? String else {
            throw ParseError(description: "\(test): an expected header that is no name nor list")
        }
        if entry.count > 2, let operation = entry[1] as? String {
            if operation == "=", let other = entry[2] as? String { return .equals(name, other) }
            if operation == ">", let bound = entry[2] as? Int { return .greaterThan(name, bound) }
            throw ParseError(description: "\(test): unknown operator \(operation)")
        }
        guard let value = value(entry[1]) else { throw ParseError(description: "\(test): an expected header without value") }
        return .value(name, value)
    }
}
