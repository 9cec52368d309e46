import AWIBenchResults
import Foundation

/// The thumbnail proxy example (`Examples/ThumbnailServer`) against thumbor
/// 7.8 on one core, by CPU per request: its load test,
/// `Examples/ThumbnailServer/bench/run.sh`, run with short settings and
/// read back row by row.
///
/// The load test is honest by construction (see its header): both servers
/// pinned to core 0, the upstream and wrk on the others, every request a
/// URL of its own, our server's caches off, rounds interleaved with the
/// server order alternating; the CPU per request is each server's
/// utime + stime over the requests it answered. One row per class of image
/// (and the mix of them), plus identical concurrent requests (coalescing).
///
/// In the default run and `--full` it runs when thumbor is installed and the
/// release server is built (a five-minute run installs and builds nothing);
/// named (`--suite server`, `--scenario thumbnail-server`) it installs
/// thumbor into a venv and builds the server as the load test does.
struct ThumbnailServerScenario: Scenario {
    let name = "thumbnail-server"
    let summary = "Examples/ThumbnailServer vs thumbor 7.8 on one core (bench/run.sh, short): CPU per request per class, interleaved rounds (target ≥ 1.0×)"

    static var loadTest: URL {
        BenchmarkPaths.repository.appendingPathComponent("Examples/ThumbnailServer/bench/run.sh")
    }

    static var releaseServer: URL {
        BenchmarkPaths.repository.appendingPathComponent("Examples/ThumbnailServer/.build/release/thumbnail-server")
    }

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        let named = ScenarioRegistry.isNamed(name, in: context.options)
        let thumbor = Thumbor.installed()
        guard thumbor != nil || named else {
            throw ScenarioSkipped("thumbor is not installed: `--suite server` installs thumbor 7.8 into \(Thumbor.workDirectory.path)/thumbor-venv and runs it")
        }
        let built = FileManager.default.isExecutableFile(atPath: Self.releaseServer.path)
        guard built || named else {
            throw ScenarioSkipped("the release thumbnail-server is not built: `--suite server` builds it (or swift build --package-path Examples/ThumbnailServer -c release)")
        }
        for tool in ["wrk", "taskset"] where (try? await ChildProcess.run(ChildProcess.env, ["which", tool]))?.status != 0 {
            throw ScenarioSkipped("no \(tool) (apt-get install wrk util-linux; scripts/bench installs wrk)")
        }
        // Short settings for the default run; longer when asked for by name or scaled.
        let scale = context.options.durationScale * (context.options.quick ? 0.25 : 1)
        let rounds = context.options.quick ? 1 : named ? 3 : 2
        // The default run's share of its five minutes: two 2-second windows
        // per class and server (thumbor finishing what wrk left open adds
        // seconds to each); named, three of 10 seconds.
        let duration = max(2, Int((Double(named ? 10 : 2) * scale).rounded()))
        var environment = ProcessInfo.processInfo.environment
        environment["BENCH_DIR"] = Thumbor.workDirectory.path
        environment["ROUNDS"] = String(rounds)
        environment["DURATION"] = String(duration)
        environment["WARMUP"] = String(named ? 3 : 1)
        environment["CLASSES"] = environment["CLASSES"] ?? "baseline progressive png"
        if let thumbor { environment["THUMBOR"] = thumbor.path }
        if built { environment["SERVER"] = Self.releaseServer.path }
        let results = Thumbor.workDirectory.appendingPathComponent("results.tsv")
        try? FileManager.default.removeItem(at: results)
        context.progress.beginCase("load test: \(rounds) round(s) of \(duration) s per class and server" + (built ? "" : ", building the server first"))
        let arguments = [Self.loadTest.path] + (context.options.corpusDirectory.map { [$0] } ?? [])
        let run = try await ChildProcess.run(URL(fileURLWithPath: "/bin/bash"), arguments, environment: environment)
        guard run.status == 0, let table = try? String(contentsOf: results, encoding: .utf8) else {
            throw BenchmarkFailure("bench/run.sh failed (\(run.status)): \(run.output.suffix(1500))")
        }
        context.progress.endCase("done")
        return LoadTestResults(tsv: table).rows(scenario: name, corpus: context.options.corpusDirectory)
    }
}
