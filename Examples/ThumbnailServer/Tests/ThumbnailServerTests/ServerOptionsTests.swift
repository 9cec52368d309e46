import AsyncWebImage
import AsyncWebImageRedis
import Foundation
import Logging
import Testing
@testable import thumbnail_server

/// Settings from flags, the environment and a JSON file (swift-configuration's
/// providers), the help and README made from one table, and what a new user
/// sees when something is wrong: in process, and through the real binary.
@Suite(.serialized)
struct ServerOptionsTests {
    @Test("the command line wins over the environment, which wins over the file; lists, switches and JSON numbers read")
    func precedence() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("thumbnail-config-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("""
        {"maxDownloads": 3, "timeout": 7, "allowHost": ["a.example", "*.b.example"], "allowLoopback": true, "cacheDir": "/tmp/x", "key": "00ff"}
        """.utf8).write(to: file)
        let options = try await ServerOptions.parsed(
            ["--config", file.path, "--timeout", "9"], environment: ["THUMBNAIL_MAX_DOWNLOADS": "5", "THUMBNAIL_TIMEOUT": "8"]
        )
        #expect(options.timeout == .seconds(9))
        #expect(options.maxConcurrentDownloads == 5)
        #expect(options.allowedHosts.allows("a.example") && options.allowedHosts.allows("c.b.example") && !options.allowedHosts.allows("x.example"))
        #expect(options.allowsLoopback)
        #expect(options.cacheDirectory == "/tmp/x")
        #expect(options.signer != nil)
        // From the environment alone, and the older spellings.
        let environment = try await ServerOptions.parsed([], environment: [
            "THUMBNAIL_ALLOW_HOSTS": "c.example, d.example", "THUMBNAIL_ALLOW_LOOPBACK": "1", "LOG_LEVEL": "debug",
            "IMGPROXY_KEY": "abcd", "THUMBNAIL_REDIS": "127.0.0.1:6379,127.0.0.2:6380",
        ])
        #expect(environment.allowedHosts.allows("d.example") && !environment.allowedHosts.allows("a.example"))
        #expect(environment.allowsLoopback && environment.logLevel == .debug && environment.signer != nil)
        #expect(environment.redis.endpoints.map(\.port) == [6379, 6380])
        #expect(try await ServerOptions.parsed(["--allow-host", "x.example", "--allow-host", "y.example"]).allowedHosts.allows("y.example"))
        #expect(try await ServerOptions.parsed(["--port=0"]).port == 0)
    }

    @Test("bad input names where it came from", arguments: [
        (["--bogus"], [:], "unknown option --bogus"),
        (["--port", "70000"], [:], "--port: expects a whole number from 0 to 65535"),
        ([], ["THUMBNAIL_PORT": "http"], "THUMBNAIL_PORT: expects a whole number from 0 to 65535"),
        (["--port"], [:], "--port needs a value: --port PORT"),
        (["--port", "1", "2"], [:], "unexpected argument 2 after --port"),
        (["--allow-loopback=yes"], [:], "--allow-loopback takes no value"),
        (["8080"], [:], "unexpected argument 8080"),
        (["-p", "8080"], [:], "unexpected argument -p"),
        (["--key", "00ff"], [:], "--key is not read from the command line (other users can list it): set THUMBNAIL_KEY"),
        ([], ["THUMBNAIL_KEY": "xyz"], "THUMBNAIL_KEY and THUMBNAIL_SALT must be hex, and the key not empty"),
        (["--min-max-age", "100", "--max-age", "10"], [:], "--min-max-age (100) is more than --max-age (10)"),
        (["--redis", "nohost"], [:], "--redis: expects HOST:PORT or unix:PATH"),
        (["--config", "/nonexistent/thumbnail.json"], [:], "/nonexistent/thumbnail.json: cannot be read"),
    ] as [([String], [String: String], String)])
    func badInput(arguments: [String], environment: [String: String], message: String) async {
        await #expect(throws: UsageError(message)) { try await ServerOptions.parse(arguments, environment: environment) }
    }

    @Test("a switch means one thing in every source: true or false (or 1, 0, yes, no), anything else refused naming the setting")
    func switches() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("thumbnail-config-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let expects = "expects true or false (or 1, 0, yes, no)"
        for value in ["-1", "0.5", "2", "\"maybe\"", "[true]", "null"] {
            try Data(#"{"allowUnsigned": \#(value)}"#.utf8).write(to: file)
            let message = value == "[true]" || value == "null"
                ? "\(file.path): allowUnsigned: expects a string, a number, true or false, or a list of strings"
                : "\(file.path): allowUnsigned: \(expects)"
            await #expect(throws: UsageError(message), "\(value)") { try await ServerOptions.parse(["--config", file.path], environment: [:]) }
        }
        for (value, on) in [("true", true), ("false", false), ("\"true\"", true), ("1", true), ("0", false), ("\"no\"", false)] {
            try Data(#"{"allowUnsigned": \#(value), "key": "00ff"}"#.utf8).write(to: file)
            #expect(try await ServerOptions.parsed(["--config", file.path]).allowsUnsigned == on, "\(value)")
        }
        // The environment reads the same words, with the same parser
        await #expect(throws: UsageError("THUMBNAIL_ALLOW_UNSIGNED: \(expects)")) {
            try await ServerOptions.parse([], environment: ["THUMBNAIL_ALLOW_UNSIGNED": "2"])
        }
        for (value, on) in [("TRUE", true), ("yes", true), ("0", false)] {
            #expect(try await ServerOptions.parsed([], environment: ["THUMBNAIL_ALLOW_UNSIGNED": value]).allowsUnsigned == on)
        }
        // Numbers: a Boolean or a fraction is no port
        for value in ["true", "80.5"] {
            try Data(#"{"port": \#(value)}"#.utf8).write(to: file)
            await #expect(throws: UsageError("\(file.path): port: expects a whole number from 0 to 65535")) {
                try await ServerOptions.parse(["--config", file.path], environment: [:])
            }
        }
        // A list from the file's string is read as the environment's: comma-separated
        try Data(#"{"allowHost": "a.example, b.example"}"#.utf8).write(to: file)
        #expect(try await ServerOptions.parsed(["--config", file.path]).allowedHosts.allows("b.example"))
    }

    #if OpenTelemetry
    @Test("--otel-endpoint takes an http or https URL")
    func otelEndpoint() async throws {
        await #expect(throws: UsageError("--otel-endpoint: expects an http or https URL")) {
            try await ServerOptions.parse(["--otel-endpoint", "127.0.0.1:4318"], environment: [:])
        }
        #expect(try await ServerOptions.parsed(["--otel-endpoint", "http://127.0.0.1:4318"]).otelEndpoint == "http://127.0.0.1:4318")
    }
    #endif

    @Test("a file's unknown key or wrong type is refused, naming the file and the key")
    func badFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("thumbnail-config-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(#"{"maxDownloadz": 3}"#.utf8).write(to: file)
        await #expect(throws: UsageError("\(file.path): unknown setting maxDownloadz")) {
            try await ServerOptions.parse(["--config", file.path], environment: [:])
        }
        try Data(#"{"maxDownloads": "many"}"#.utf8).write(to: file)
        await #expect(throws: UsageError("\(file.path): maxDownloads: expects a whole number from 1 to 10000")) {
            try await ServerOptions.parse([], environment: ["THUMBNAIL_CONFIG": file.path])
        }
        try Data("[1]".utf8).write(to: file)
        await #expect(throws: UsageError("\(file.path): is not a JSON object of settings")) {
            try await ServerOptions.parse(["--config", file.path], environment: [:])
        }
    }

    @Test("the README's settings table is the one the code makes (--help-markdown), and --help lists every setting")
    func readmeTable() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        let begin = try #require(text.range(of: "<!-- options: generated by thumbnail-server --help-markdown -->\n"))
        let end = try #require(text.range(of: "<!-- options end -->"))
        #expect(String(text[begin.upperBound..<end.lowerBound]) == ServerOptions.markdownTable)
        for spec in ServerOptions.table {
            #expect(ServerOptions.helpText.contains(spec.onCommandLine ? spec.synopsis : spec.environment[0]), "\(spec.key)")
        }
    }

    /// Runs the server binary with `arguments`: exit status, standard output, standard error.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (Int32, String, String) {
        let process = Process()
        process.executableURL = ServerHarness.binary
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
    }

    @Test("through the binary: --help on stdout with 0; a bad flag one line on stderr with 64; a port in use names the port, 1")
    func binary() throws {
        let (helpStatus, help, helpErrors) = try Self.run(["--help"])
        #expect(helpStatus == 0 && help.contains("--max-downloads N") && helpErrors.isEmpty)

        let (badStatus, badOutput, badErrors) = try Self.run(["--max-downloadz", "4"])
        #expect(badStatus == 64)
        #expect(badOutput.isEmpty)
        #expect(badErrors == "thumbnail-server: unknown option --max-downloadz\nsee thumbnail-server --help\n")

        // A port held by another listener (python, on a free port).
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = ["python3", "-u", "-c", "import socket, time\ns = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(1)\nprint(s.getsockname()[1], flush=True); time.sleep(60)"]
        let pipe = Pipe()
        holder.standardOutput = pipe
        try holder.run()
        defer {
            kill(holder.processIdentifier, SIGKILL)
            holder.waitUntilExit()
        }
        var portText = ""
        while !portText.hasSuffix("\n") {
            let byte = pipe.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty { break }
            portText += String(decoding: byte, as: UTF8.self)
        }
        let port = portText.trimmingCharacters(in: .whitespacesAndNewlines)
        let (status, _, errors) = try Self.run(["--port", port])
        #expect(status == 1)
        #expect(errors.contains("thumbnail-server: cannot listen on 127.0.0.1:\(port) (public listener, --port): address already in use"), "\(errors)")
    }
}
