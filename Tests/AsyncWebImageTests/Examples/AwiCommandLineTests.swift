import AsyncWebImage
import Foundation
import LoopbackServer
import Testing

/// The `awi` example, run as the built executable: exit codes and messages
/// for each kind of bad argument, and `--json` for real loads from a
/// loopback server.
@Suite("awi command line")
struct AwiCommandLineTests {
    /// What one run of `awi` left behind.
    struct Run {
        let status: Int32
        let standardOutput: String
        let standardError: String
    }

    /// Runs the `awi` binary built beside this test binary, its output in files
    /// (no pipe to fill), with a private cache home.
    func awi(_ arguments: [String], in directory: TemporaryDirectory = TemporaryDirectory()) throws -> Run {
        let binaries = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let binary = binaries.appendingPathComponent("awi")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "missing \(binary.path) (swift build --build-tests builds it)")
        let out = directory.url.appendingPathComponent("stdout")
        let err = directory.url.appendingPathComponent("stderr")
        try #require(FileManager.default.createFile(atPath: out.path, contents: nil))
        try #require(FileManager.default.createFile(atPath: err.path, contents: nil))
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory.url
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = directory.appending("cache-home").path
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus,
            standardOutput: try String(contentsOf: out, encoding: .utf8),
            standardError: try String(contentsOf: err, encoding: .utf8)
        )
    }

    @Test("--help prints the usage on standard output and exits 0")
    func help() throws {
        let run = try awi(["--help"])
        #expect(run.status == 0)
        #expect(run.standardOutput.contains("USAGE: awi [<options>] <url>"))
        #expect(run.standardOutput.contains("--json"))
        #expect(run.standardOutput.contains("Exit codes"))
        #expect(run.standardError.isEmpty)
    }

    @Test("--version prints the library's version and exits 0")
    func version() throws {
        let run = try awi(["--version"])
        #expect(run.status == 0)
        #expect(run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == CurlDataLoader.version)
    }

    @Test(
        "a bad command line exits 64 with the reason and the usage on standard error, nothing on standard output",
        arguments: [
            ([], "Missing expected argument '<url>'"),
            (["not a url"], "is not a URL"),
            (["ftp://example.com/a.png"], "only http and https URLs"),
            (["http:///a.png"], "has no host"),
            (["http://example.com/a.png", "--bogus"], "Unknown option '--bogus'"),
            (["http://example.com/a.png", "--quality", "abc"], "--quality"),
            (["http://example.com/a.png", "--quality", "1.5"], "--quality must be between 0 and 1"),
            (["http://example.com/a.png", "--blur", "abc"], "--blur"),
            (["http://example.com/a.png", "--blur", "0"], "--blur must be above 0"),
            (["http://example.com/a.png", "--rotate", "nan"], "--rotate must be a finite number"),
            (["http://example.com/a.png", "--rotate", "ten"], "--rotate"),
            (["http://example.com/a.png", "--rotate", "1e300"], "--rotate must be a finite number of degrees from -360 to 360 (got 1e+300)"),
            (["http://example.com/a.png", "--rotate", "360.5"], "--rotate must be a finite number of degrees from -360 to 360"),
            (["http://example.com/a.png", "--rotate=-361"], "--rotate must be a finite number of degrees from -360 to 360"),
            (["http://example.com/a.png", "--rotate", "inf"], "--rotate must be a finite number"),
            (["http://example.com/a.png", "--thumbnail", "256"], "'256' is not a size WxH"),
            (["http://example.com/a.png", "--resize", "0x10"], "'0x10' is not a size WxH"),
            (["http://example.com/a.png", "--fit", "squash"], "--fit"),
            (["http://example.com/a.png", "-o", "out.gif"], "--output must end in .png, .jpg or .jpeg"),
            (["http://example.com/a.png", "-o", "out"], "--output must end in .png, .jpg or .jpeg"),
            (["http://example.com/a.png", "--no-cache", "--cache-dir", "x"], "--no-cache and --cache-dir cannot be used together"),
            (["http://example.com/a.png", "--output"], "Missing value for '--output <file>'"),
            (["http://example.com/a.png", "-H", "X-Note"], "--header: "),
            (["http://example.com/a.png", "-H", "Bad Name: v"], "--header: "),
            (["http://example.com/a.png", "--header", "X-Note: a\r\nX-Injected: yes"], "--header: "),
        ] as [([String], String)]
    )
    func badArgument(arguments: [String], message: String) throws {
        let run = try awi(arguments)
        #expect(run.status == 64)
        #expect(run.standardError.contains(message), "stderr: \(run.standardError)")
        #expect(run.standardError.lowercased().contains("usage: awi"), "stderr: \(run.standardError)")
        #expect(run.standardOutput.isEmpty)
    }

    @Test("--json reports a download, then a disk hit with no request to the server")
    func jsonReport() throws {
        let server = LoopbackServer()
        try server.start()
        defer { server.stop() }
        let jpeg = try fixture("jpeg", "large.jpg")  // 640×480
        server.route("/photo.jpg", .ok(jpeg, contentType: "image/jpeg"))
        let directory = TemporaryDirectory()
        let arguments = [server.url("/photo.jpg").absoluteString, "--thumbnail", "64x64", "-o", "thumb.jpg", "--quality", "0.5",
                         "--cache-dir", directory.appending("cache").path, "--json"]

        let first = try awi(arguments, in: directory)
        #expect(first.status == 0, "stderr: \(first.standardError)")
        let report = try JSONSerialization.jsonObject(with: Data(first.standardOutput.utf8)) as? [String: Any]
        #expect(report?["source"] as? String == "network")
        #expect(report?["width"] as? Int == 64)
        #expect(report?["height"] as? Int == 48)
        #expect(report?["downloadedBytes"] as? Int == jpeg.count)
        let output = report?["output"] as? [String: Any]
        let written = try Data(contentsOf: directory.url.appendingPathComponent("thumb.jpg"))
        #expect(output?["bytes"] as? Int == written.count)
        #expect(output?["format"] as? String == "jpeg")
        #expect(written.prefix(2) == Data([0xFF, 0xD8]))
        let timings = report?["milliseconds"] as? [String: Double]
        #expect(Set(timings?.keys.map { $0 } ?? []) == ["load", "encode", "write", "total"])
        #expect((timings?["total"] ?? -1) >= (timings?["load"] ?? 0))

        let second = try awi(arguments, in: directory)
        #expect(second.status == 0, "stderr: \(second.standardError)")
        let again = try JSONSerialization.jsonObject(with: Data(second.standardOutput.utf8)) as? [String: Any]
        #expect(again?["source"] as? String == "disk")
        #expect(again?["downloadedBytes"] as? Int == 0)
        #expect(server.statistics("/photo.jpg").requests == 1)
    }

    @Test("--header sends each field as spelled, repeats included, and keys the cache by it")
    func headerOption() throws {
        let server = LoopbackServer()
        try server.start()
        defer { server.stop() }
        let png = try fixture("png", "rgb8.png")
        let seen = Locked<[[(name: String, value: String)]]>([])
        server.route("/h.png") { request in
            seen.withLock { $0.append(request.fields) }
            return .ok(png, contentType: "image/png")
        }
        let directory = TemporaryDirectory()
        func arguments(_ token: String) -> [String] {
            [server.url("/h.png").absoluteString, "-o", "h.png", "--cache-dir", directory.appending("cache").path, "--json",
             "-H", "X-Token: \(token)", "--header", "X-Multi: a", "-H", "x-multi:b"]
        }

        let first = try awi(arguments("A"), in: directory)
        #expect(first.status == 0, "stderr: \(first.standardError)")
        let fields = try #require(seen.value.first)
        #expect(fields.contains { $0.name == "X-Token" && $0.value == "A" })
        #expect(fields.filter { $0.name.lowercased() == "x-multi" }.map(\.value) == ["a", "b"])
        // Another token is another identity: not the disk entry of the first.
        let other = try awi(arguments("B"), in: directory)
        #expect(other.standardOutput.contains("\"source\":\"network\""), "stdout: \(other.standardOutput)")
        let same = try awi(arguments("A"), in: directory)
        #expect(same.standardOutput.contains("\"source\":\"disk\""), "stdout: \(same.standardOutput)")
        #expect(server.statistics("/h.png").requests == 2)
    }

    @Test("a failed load exits with the code of its kind: 69 for an HTTP error, 65 for bytes that are no image, 73 for an unwritable output")
    func failureKinds() throws {
        let server = LoopbackServer()
        try server.start()
        defer { server.stop() }
        server.route("/missing.jpg", .status(404))
        server.route("/page.jpg", .ok(Data(String(repeating: "<html>not an image</html>\n", count: 20).utf8), contentType: "text/html"))
        server.route("/photo.jpg", .ok(try fixture("jpeg", "large.jpg"), contentType: "image/jpeg"))

        let missing = try awi([server.url("/missing.jpg").absoluteString, "--no-cache"])
        #expect(missing.status == 69)
        #expect(missing.standardError.contains("404"), "stderr: \(missing.standardError)")

        let page = try awi([server.url("/page.jpg").absoluteString, "--no-cache"])
        #expect(page.status == 65, "stderr: \(page.standardError)")

        let unwritable = try awi([server.url("/photo.jpg").absoluteString, "--no-cache", "-o", "no/such/dir/out.png"])
        #expect(unwritable.status == 73)
        #expect(unwritable.standardError.contains("cannot write no/such/dir/out.png"), "stderr: \(unwritable.standardError)")
        #expect(!unwritable.standardError.contains("Usage:"))
    }
}
