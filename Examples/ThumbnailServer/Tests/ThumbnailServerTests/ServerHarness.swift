import AsyncWebImage
import AsyncWebImageAllFormats
import Foundation
import HTTPTypes
@testable import thumbnail_server

/// A real `thumbnail-server` process and a real loopback origin
/// (`python3 -m http.server`) for one test, both stopped by PID.
final class ServerHarness {
    /// The origin's files.
    let root: URL
    /// The origin's base URL.
    private(set) var origin = ""
    /// The server's base URL.
    private(set) var base = ""
    /// The server's operator listener (`/metrics`, `/health`).
    private(set) var operatorBase = ""
    /// Where the server writes its standard error (its logs).
    private(set) var serverLog: URL?
    private var originProcess: Process?
    private var serverProcess: Process?
    /// Servers started before the current one (a fleet), stopped on deinit.
    private var earlierServers: [Process] = []
    private var redisProcess: Process?
    /// The Redis port, once ``startRedis()`` ran.
    private(set) var redisPort = 0
    private let originLog: URL

    /// The signing key and salt the server is started with (hex).
    static let keyHex = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
    static let saltHex = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("thumbnail-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("www"), withIntermediateDirectories: true)
        originLog = root.appendingPathComponent("origin.log")
    }

    deinit {
        stopServer()
        for process in earlierServers where process.isRunning { process.terminate(); process.waitUntilExit() }
        // SIGKILL: see the origin below; Redis keeps nothing (persistence off).
        if let redisProcess, redisProcess.isRunning {
            kill(redisProcess.processIdentifier, SIGKILL)
            redisProcess.waitUntilExit()
        }
        // SIGKILL: the test process's threads block SIGTERM, and Python
        // inherits that mask (the server unblocks it, Python does not).
        if let originProcess, originProcess.isRunning {
            kill(originProcess.processIdentifier, SIGKILL)
            originProcess.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: root)
    }

    /// Writes `data` as the origin's file `name`, answered with the header
    /// `fields` (one `Name: value` each) when given.
    func serve(_ data: Data, as name: String, fields: [String] = []) throws {
        let file = root.appendingPathComponent("www").appendingPathComponent(name)
        try data.write(to: file)
        if !fields.isEmpty {
            try Data(fields.joined(separator: "\n").utf8).write(to: file.appendingPathExtension("headers"))
        }
    }

    /// Makes a 3-frame 40×30 GIF with ImageMagick (red, lime, blue, 200 ms
    /// each, looping) and serves it as the origin's file `name`.
    func serveAnimatedGIF(as name: String) throws {
        let gif = root.appendingPathComponent(name)
        try Self.run("/usr/bin/convert", [
            "-delay", "20", "-size", "40x30", "xc:red", "xc:lime", "xc:blue", "-loop", "0", gif.path,
        ])
        try serve(try Data(contentsOf: gif), as: name)
    }

    /// Starts the origin (a static file server on a free loopback port);
    /// with a `delay`, each answer waits that many seconds after the request
    /// is logged (a slow upstream).
    ///
    /// Each file `NAME` is answered with the header lines of a file
    /// `NAME.headers` beside it when there is one (`Cache-Control: private`).
    func startOrigin(delay: Double = 0) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let www = root.appendingPathComponent("www").path
        process.arguments = ["python3", "-u", "-c", Self.scriptedOrigin, www, String(delay)]
        _ = FileManager.default.createFile(atPath: originLog.path, contents: nil)
        let log = try FileHandle(forWritingTo: originLog)
        process.standardOutput = log
        process.standardError = log
        try process.run()
        originProcess = process
        let line = try waitForLine(in: originLog, containing: "port ")
        guard let port = line.split(separator: " ").firstIndex(of: "port").map({ line.split(separator: " ")[$0 + 1] }) else {
            throw HarnessError("no port in \(line)")
        }
        origin = "http://127.0.0.1:\(port)"
    }

    /// A static file server that logs each GET as http.server does, waits
    /// `delay` seconds, then answers with the file (by the path's last
    /// component, without its query) and the header lines of `NAME.headers`
    /// beside it, and nothing else about caching: as a plain file server,
    /// an app backend or a signed object-store URL answers.
    private static let scriptedOrigin = """
    import http.server, os, sys, time
    root, delay = sys.argv[1], float(sys.argv[2])
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = 'HTTP/1.1'
        disable_nagle_algorithm = True
        def do_GET(self):
            print('"GET ' + self.path + ' HTTP/1.1"', flush=True)
            time.sleep(delay)
            path = os.path.join(root, os.path.basename(self.path.split('?')[0]))
            if not os.path.isfile(path):
                self.send_response(404)
                self.send_header('Content-Length', '0')
                self.end_headers()
                return
            data = open(path, 'rb').read()
            self.send_response(200)
            self.send_header('Content-Length', str(len(data)))
            fields = []
            if os.path.isfile(path + '.headers'):
                for line in open(path + '.headers').read().splitlines():
                    name, value = line.split(':', 1)
                    fields.append((name.strip(), value.strip()))
            for name, value in fields:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        def log_message(self, *arguments):
            pass
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    print('Serving HTTP on 127.0.0.1 port', server.server_address[1], flush=True)
    server.serve_forever()
    """

    /// How many GETs the origin has answered so far.
    var originRequests: Int {
        let text = (try? String(contentsOf: originLog, encoding: .utf8)) ?? ""
        return text.components(separatedBy: "\"GET /").count - 1
    }

    /// Starts a `redis-server` on a free loopback port, persistence off,
    /// with `arguments` after the common ones (`--requirepass`, `--user`).
    func startRedis(_ arguments: [String] = []) throws {
        let port = String(decoding: try Self.run("/usr/bin/env", ["python3", "-c",
            "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"]), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let log = root.appendingPathComponent("redis.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["redis-server", "--bind", "127.0.0.1", "--port", port, "--save", "", "--appendonly", "no", "--dir", root.path] + arguments
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = FileHandle.nullDevice
        try process.run()
        redisProcess = process
        _ = try waitForLine(in: log, containing: "Ready to accept connections")
        redisPort = Int(port) ?? 0
    }

    /// How many keys the Redis holds (`DBSIZE`, by `redis-cli`, with
    /// `password` for a server that needs one).
    func redisKeyCount(password: String? = nil) throws -> Int {
        Int(try redisCommand(["DBSIZE"], password: password).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// One command by `redis-cli` (with `password` for a server that needs one); its output.
    func redisCommand(_ arguments: [String], password: String? = nil) throws -> String {
        let auth = password.map { ["--no-auth-warning", "-a", $0] } ?? []
        return String(decoding: try Self.run("/usr/bin/env", ["redis-cli", "-p", String(redisPort)] + auth + arguments), as: UTF8.self)
    }

    /// Starts another server, keeping the current one running (a fleet);
    /// ``base`` is then the new one's.
    func startAnotherServer(_ arguments: [String] = [], environment: [String: String] = [:]) throws {
        if let serverProcess { earlierServers.append(serverProcess) }
        serverProcess = nil
        try startServer(arguments, environment: environment)
    }

    /// Starts the server with `arguments` (plus the signing key, `--port 0`,
    /// loopback upstreams, an operator listener on a free port and, unless
    /// `cacheStatusHeader` is false, `X-Cache`), with `environment` added to
    /// the test's. Its standard error goes to ``serverLog``.
    func startServer(_ arguments: [String] = [], cacheStatusHeader: Bool = true, environment extra: [String: String] = [:]) throws {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = ["--port", "0", "--allow-loopback", "--operator-port", "0"]
            + (cacheStatusHeader ? ["--cache-status-header"] : []) + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["THUMBNAIL_KEY"] = Self.keyHex
        environment["THUMBNAIL_SALT"] = Self.saltHex
        environment.merge(extra) { $1 }
        process.environment = environment
        let name = "server-\(UUID().uuidString)"
        let out = root.appendingPathComponent(name + ".out")
        let err = root.appendingPathComponent(name + ".err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        serverProcess = process
        serverLog = err
        let line = try waitForLine(in: out, containing: "listening on ", excluding: "operator")
        base = String(line.split(separator: " ").last ?? "")
        let operatorLine = try waitForLine(in: out, containing: "operator listening on ")
        operatorBase = String(operatorLine.split(separator: " ").last ?? "")
    }

    /// The running server's process identifier.
    var serverPID: Int32? { serverProcess?.processIdentifier }

    /// What the server wrote on standard error so far.
    var serverErrors: String {
        serverLog.flatMap { try? String(contentsOf: $0, encoding: .utf8) } ?? ""
    }

    /// The server's /metrics, from its operator listener.
    func metricsText() throws -> String {
        String(decoding: try get("/metrics", at: operatorBase).body, as: UTF8.self)
    }

    /// Runs the server with `arguments` and `environment` until it exits by
    /// itself (at most `timeout` seconds, then it is killed): its exit
    /// status (`nil` when it had to be killed) and what it wrote to
    /// standard output and standard error.
    func runServerToExit(_ arguments: [String], environment extra: [String: String] = [:], timeout: TimeInterval) throws -> (status: Int32?, output: String) {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = ["--port", "0", "--allow-loopback"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment.merge(extra) { _, new in new }
        process.environment = environment
        let out = root.appendingPathComponent("exit-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        let handle = try FileHandle(forWritingTo: out)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        var status: Int32?
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        } else {
            status = process.terminationStatus
        }
        return (status, (try? String(contentsOf: out, encoding: .utf8)) ?? "")
    }

    /// Sends `signal` to the server process, by its PID.
    func signalServer(_ signal: Int32) {
        if let serverProcess { kill(serverProcess.processIdentifier, signal) }
    }

    /// Waits at most `timeout` seconds for the server to exit: its exit
    /// status, or `nil` when it still runs or was killed by a signal.
    func waitForServerExit(timeout: TimeInterval) -> Int32? {
        guard let serverProcess else { return nil }
        let deadline = Date().addingTimeInterval(timeout)
        while serverProcess.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        guard !serverProcess.isRunning, serverProcess.terminationReason == .exit else { return nil }
        return serverProcess.terminationStatus
    }

    /// Stops the server (SIGTERM, then waits for it).
    func stopServer() {
        if let serverProcess, serverProcess.isRunning { serverProcess.terminate(); serverProcess.waitUntilExit() }
        serverProcess = nil
    }

    /// The built server next to this test bundle (or `THUMBNAIL_SERVER_BIN`).
    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["THUMBNAIL_SERVER_BIN"] { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("thumbnail-server")
    }

    /// The signature imgproxy would compute for `path`, by Python's hmac
    /// module (not the server's code).
    static func signature(of path: String) throws -> String {
        let script = """
        import base64, hashlib, hmac, sys
        key, salt, path = bytes.fromhex(sys.argv[1]), bytes.fromhex(sys.argv[2]), sys.argv[3].encode()
        print(base64.urlsafe_b64encode(hmac.new(key, salt + path, hashlib.sha256).digest()).rstrip(b"=").decode())
        """
        let result = try run("/usr/bin/env", ["python3", "-c", script, keyHex, saltHex, path])
        return String(decoding: result, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A query-form `target` with its signature as the last parameter.
    static func signedQuery(_ target: String) throws -> String {
        target + "&signature=" + (try signature(of: target))
    }

    /// One response, fetched with the curl command-line tool.
    struct Reply {
        let status: Int
        /// Every header line of the response, in order.
        let headers: HTTPFields
        let body: Data
    }

    /// GETs `path` from the server (or from `base`) with `headers`.
    func get(_ path: String, headers: HTTPFields = [:], at base: String? = nil) throws -> Reply {
        let base = base ?? self.base
        let headerFile = root.appendingPathComponent("headers-\(UUID().uuidString)")
        let bodyFile = root.appendingPathComponent("body-\(UUID().uuidString)")
        var arguments = ["-s", "--max-time", "60", "-D", headerFile.path, "-o", bodyFile.path, "-w", "%{http_code}"]
        // curl sends Accept: */* unless told otherwise.
        arguments += ["-H", "Accept: \(headers[.accept] ?? "")"]
        for field in headers where field.name != .accept { arguments += ["-H", "\(field.name.rawName): \(field.value)"] }
        arguments.append(base + path)
        let status = Int(String(decoding: try Self.run("/usr/bin/env", ["curl"] + arguments), as: UTF8.self)) ?? 0
        var fields = HTTPFields()
        let text = (try? String(contentsOf: headerFile, encoding: .utf8)) ?? ""
        for line in text.split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":"), let name = HTTPField.Name(String(line[..<colon])) else { continue }
            fields.append(HTTPField(name: name, value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        return Reply(status: status, headers: fields, body: (try? Data(contentsOf: bodyFile)) ?? Data())
    }

    /// Sends `HEAD path` on a raw socket (Python's, not curl, which would
    /// never read a body after HEAD) and reads to the connection's close:
    /// whatever follows the header block is a body the server should not have sent.
    func head(_ path: String, at base: String? = nil) throws -> Reply {
        let base = base ?? self.base
        let script = """
        import socket, sys
        host, port = sys.argv[1].rsplit(":", 1)
        s = socket.create_connection((host, int(port)), timeout=60)
        s.sendall(("HEAD " + sys.argv[2] + " HTTP/1.1\\r\\nHost: " + sys.argv[1] + "\\r\\nConnection: close\\r\\n\\r\\n").encode())
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk: break
            data += chunk
        sys.stdout.buffer.write(data)
        """
        let address = String(base.dropFirst("http://".count))
        let raw = try Self.run("/usr/bin/env", ["python3", "-c", script, address, path])
        guard let end = raw.range(of: Data("\r\n\r\n".utf8)) else { throw HarnessError("no header block in the HEAD answer") }
        let lines = String(decoding: raw[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        var fields = HTTPFields()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), let name = HTTPField.Name(String(line[..<colon])) else { continue }
            fields.append(HTTPField(name: name, value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        return Reply(status: status, headers: fields, body: Data(raw[end.upperBound...]))
    }

    /// The decodes the server's loader made: the count of its
    /// `awi_decode_duration_seconds` timer, from /metrics.
    func decodes() throws -> Int {
        let text = try metricsText()
        for line in text.split(separator: "\n") where line.hasPrefix("awi_decode_duration_seconds_count ") {
            return Int(line.split(separator: " ")[1]) ?? -1
        }
        return 0
    }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String], requiringSuccess: Bool = false) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        // Its errors in a file (no second pipe to fill while stdout is read),
        // so a tool that must succeed says why it failed instead of handing
        // back short output (curl's failures are answers some tests expect).
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("harness-stderr-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: errors.path, contents: nil) else { throw HarnessError("cannot create \(errors.path)") }
        defer { try? FileManager.default.removeItem(at: errors) }
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 || !requiringSuccess else {
            let message = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw HarnessError("\(([executable] + arguments).joined(separator: " ")) exited \(process.terminationStatus): \(message.prefix(500))")
        }
        return data
    }

    /// Waits (at most 30 s) for a line containing `text` (and not `excluded`) in `file`.
    func waitForLine(in file: URL, containing text: String, excluding excluded: String? = nil) throws -> String {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let content = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            let match = content.split(separator: "\n").first { line in
                line.contains(text) && !(excluded.map { line.contains($0) } ?? false)
            }
            if let line = match {
                return String(line)
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw HarnessError("timed out waiting for '\(text)' in \(file.path)")
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Made-up test images, encoded with the library's encoders.
enum TestImages {
    /// A smooth RGB gradient, `width` × `height`, as JPEG or PNG.
    static func gradient(width: Int, height: Int, as format: ImageFormat) throws -> Data {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                pixels[i] = UInt8(x * 255 / max(1, width - 1))
                pixels[i + 1] = UInt8(y * 255 / max(1, height - 1))
                pixels[i + 2] = 128
            }
        }
        let image = try Image(width: width, height: height, pixelFormat: .rgb8, pixels: pixels)
        return try ImageCoderRegistry.allFormats.encode(image, as: format, quality: 0.9)
    }

    /// A flat grey `width` × `height` PNG with a detailed patch (8×8 blocks
    /// of pseudo-random colours) over the columns `patch`.
    static func patch(width: Int, height: Int, columns patch: Range<Int>) throws -> Data {
        var pixels = [UInt8](repeating: 128, count: width * height * 3)
        var state: UInt32 = 12_345
        var blocks: [Int: (UInt8, UInt8, UInt8)] = [:]
        for y in 0..<height {
            for x in patch {
                let block = (y / 8) * 1000 + x / 8
                if blocks[block] == nil {
                    state = state &* 1_664_525 &+ 1_013_904_223
                    blocks[block] = (UInt8(truncatingIfNeeded: state >> 24), UInt8(truncatingIfNeeded: state >> 16), UInt8(truncatingIfNeeded: state >> 8))
                }
                let (r, g, b) = blocks[block]!
                let i = (y * width + x) * 3
                pixels[i] = r
                pixels[i + 1] = g
                pixels[i + 2] = b
            }
        }
        let image = try Image(width: width, height: height, pixelFormat: .rgb8, pixels: pixels)
        return try ImageCoderRegistry.allFormats.encode(image, as: .png)
    }
}

extension ServerOptions {
    /// The settings `arguments` and `environment` give, for a run.
    static func parsed(_ arguments: [String], environment: [String: String] = [:]) async throws -> ServerOptions {
        guard case .run(let options) = try await parse(arguments, environment: environment) else {
            throw HarnessError("\(arguments) asks for help, not a run")
        }
        return options
    }
}

extension HTTPField.Name {
    /// The server's cache status field.
    static let xCache = HTTPField.Name("X-Cache")!
}
