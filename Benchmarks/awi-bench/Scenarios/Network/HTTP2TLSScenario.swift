import AWIBenchResults
import AsyncWebImage
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// 1,000 distinct 100 KB files over HTTP/2 with TLS from a real `nghttpd`
/// the scenario starts on 127.0.0.1 (certificates made by `openssl` for the
/// run), through `CurlDataLoader` (trusting the run's CA), against the curl
/// tool fetching the same URLs with `--parallel --http2` from the same
/// server. Both run 64 transfers at once, multiplexed on one connection;
/// rounds interleaved.
struct HTTP2TLSScenario: Scenario {
    let name = "http2-tls"
    let summary = "1,000 × 100 KB over HTTP/2 + TLS from nghttpd via CurlDataLoader vs curl --parallel --http2 (target ≥ 0.9×)"

    static let fileCount = 1_000
    static let fileSize = 100 * 1024
    static let parallel = 64

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        let caseName = "\(Self.fileCount) × 100 KB, \(Self.parallel) at once"
        return [await context.measureCase(scenario: name, caseName: caseName) {
            try await measure(caseName: caseName, context: context)
        }]
    }

    private func measure(caseName: String, context: BenchmarkContext) async throws -> ResultRow {
        guard CurlCommand.isAvailable else { throw ScenarioSkipped("no curl binary on the PATH (scripts/install-deps installs it)") }
        guard let nghttpd = ["/usr/sbin/nghttpd", "/usr/bin/nghttpd"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw ScenarioSkipped("no nghttpd (scripts/install-deps installs nghttp2-server)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("awi-bench-h2-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let documents = directory.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true)
        try Self.makeCertificates(in: directory.path)
        // Distinct names, distinct bytes: each file a window of one pool.
        var random = SplitMix64(seed: 200)
        let pool = Data((0..<(Self.fileSize + 4 * Self.fileCount)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        for index in 0..<Self.fileCount {
            try pool.subdata(in: (index * 4)..<(index * 4 + Self.fileSize)).write(to: documents.appendingPathComponent("f\(index)"))
        }
        let port = try Self.freePort()
        let server = Process()
        server.executableURL = URL(fileURLWithPath: nghttpd)
        server.arguments = ["--address=127.0.0.1", "-d", documents.path, String(port), directory.path + "/server.key", directory.path + "/server.pem"]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        try await Self.waitForListener(port: port)
        let urls = (0..<Self.fileCount).map { URL(string: "https://127.0.0.1:\(port)/f\($0)")! }

        var configuration = CurlDataLoader.Configuration()
        configuration.caBundlePath = directory.path + "/ca.pem"
        configuration.maxConcurrentDownloads = Self.parallel
        let loader = CurlDataLoader(configuration: configuration)
        let configFile = directory.appendingPathComponent("curl.conf")
        var problems: [String] = []
        var versions: Set<String> = []

        let plan = context.plan(warmup: 1, minIterations: 3, maxIterations: 12, budget: 8)
        let measurement = try await InterleavedMeasurement.run(
            plan: plan, progress: context.progress,
            ours: {
                var wrong = 0
                let sample = try await Sample.inProcess {
                    (wrong, versions) = try await Self.fetchAll(urls, with: loader)
                }
                if wrong > 0 { problems.append("CurlDataLoader: \(wrong) bodies of the wrong size") }
                return sample
            },
            baseline: {
                var outcome: CurlCommand.Outcome?
                let sample = try await Sample.inProcess {
                    outcome = try await CurlCommand.fetch(
                        urls, parallel: Self.parallel, workFile: configFile,
                        // curl 7.88 here sometimes stalls on the last stream of a
                        // --parallel HTTP/2 run; bounded, such a round shows as a problem.
                        extraArguments: ["--http2", "--cacert", directory.path + "/ca.pem", "--max-time", "20"]
                    )
                }
                if let outcome {
                    let good = outcome.lines.filter { $0 == "200 \(Self.fileSize)" }.count
                    if outcome.exitStatus != 0 || good != urls.count {
                        problems.append("curl: exit \(outcome.exitStatus), \(good)/\(urls.count) good; \(outcome.standardError.prefix(200))")
                    }
                }
                return sample
            }
        )
        var row = ResultRow(
            scenario: name, caseName: caseName, measurement: measurement,
            unitsPerOperation: Double(Self.fileCount * Self.fileSize) / 1e6, unit: "MB/s", basis: .wall,
            baseline: "curl --parallel --http2", target: .ratioAtLeast(0.9)
        )
        var note = "one operation = all 1,000 files (p50/p99 per round); HTTP versions seen by the loader: "
            + versions.sorted().joined(separator: ",")
        if versions != ["2"] { problems.append("the loader did not use HTTP/2 only") }
        if let ours = measurement.ours.median(.cpu), let theirs = measurement.baseline.median(.cpu) {
            note += "; CPU per round (server included on both sides) \(Format.seconds(ours)) vs \(Format.seconds(theirs)) for curl"
        }
        if !problems.isEmpty {
            note += "; PROBLEMS: " + Set(problems).sorted().joined(separator: "; ")
            row.passed = false
        }
        row.note = note
        return row
    }

    /// Fetches every URL at once (the loader queues past its slots); returns
    /// how many bodies had the wrong size and the HTTP versions seen.
    static func fetchAll(_ urls: [URL], with loader: CurlDataLoader) async throws -> (Int, Set<String>) {
        try await withThrowingTaskGroup(of: (Int, String?).self) { group in
            for url in urls {
                group.addTask {
                    var received = 0
                    var version: String?
                    for try await event in loader.loadData(for: DataRequest(url: url)) {
                        switch event {
                        case .head(let head): version = head.timings?.httpVersion
                        case .chunk(let data): received += data.count
                        }
                    }
                    return (received, version)
                }
            }
            var wrong = 0
            var versions: Set<String> = []
            for try await (received, version) in group {
                if received != fileSize { wrong += 1 }
                versions.insert(version ?? "?")
            }
            return (wrong, versions)
        }
    }

    /// A CA and a server certificate for 127.0.0.1, valid two days.
    static func makeCertificates(in directory: String) throws {
        let script = """
        set -e
        cd '\(directory)'
        openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ca.key 2>/dev/null
        openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out server.key 2>/dev/null
        openssl req -x509 -new -key ca.key -out ca.pem -days 2 -subj /CN=awi-bench-CA 2>/dev/null
        openssl req -new -key server.key -out server.csr -subj /CN=localhost 2>/dev/null
        printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\n' > server.ext
        openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 -extfile server.ext 2>/dev/null
        """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ScenarioSkipped("openssl could not make the certificates") }
    }

    /// A port the kernel has just given out on 127.0.0.1 and taken back.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchmarkFailure("socket failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw BenchmarkFailure("bind failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Waits (bounded: 500 tries 10 ms apart) until something accepts on `port`.
    static func waitForListener(port: Int) async throws {
        for _ in 0..<500 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(port).bigEndian
            let connected = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            close(fd)
            if connected { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw BenchmarkFailure("nghttpd did not start on \(port)")
    }
}
