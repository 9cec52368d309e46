import AWIBenchResults
import AsyncWebImage
import Foundation

/// Runs the selected scenarios (or reads a finished run), prints the text,
/// and writes the JSON, the comparison and the report.
enum BenchmarkRunner {
    /// sysexits(3) codes (see ``AwiBenchCommand``).
    enum ExitStatus {
        static let usage: Int32 = 64
        static let dataError: Int32 = 65
        static let noInput: Int32 = 66
        static let unavailable: Int32 = 69
        static let software: Int32 = 70
        static let cannotCreate: Int32 = 73
        static let ioError: Int32 = 74
    }

    /// A failure that ends the program with `status`.
    struct Failure: Error {
        let status: Int32
        let message: String
    }

    /// The whole program after the command line; returns the exit code.
    static func run(_ options: BenchmarkOptions, from savedRun: String?) async -> Int32 {
        do {
            // The base first: a bad path should not wait for a 5-minute run to be reported.
            let base = try options.comparePath.map { try read($0) }
            var document: BenchmarkDocument
            if let savedRun {
                document = try read(savedRun)
            } else {
                document = try await measure(options)
            }
            explainMisses(in: &document)
            let comparison = base.map { RunComparison(base: $0, current: document) }
            print(text(of: document, comparison: comparison))
            if let path = options.jsonPath {
                try write(path) { try document.encoded().write(to: URL(fileURLWithPath: path)) }
            }
            if let directory = options.reportDirectory {
                let folder = URL(fileURLWithPath: directory)
                try write(directory) {
                    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                    try document.encoded().write(to: folder.appendingPathComponent("results.json"))
                    let base = savedRun.map { URL(fileURLWithPath: $0).deletingLastPathComponent() }
                    let report = HTMLReport(document: document, comparison: comparison) { HTMLReport.readImage($0, relativeTo: base) }
                    let page = try report.write(to: folder)
                    printError("report: \(page.path)")
                }
            }
            if document.errors > 0 { return ExitStatus.software }
            if !document.rows.isEmpty, document.rows.allSatisfy(\.isSkipped) { return ExitStatus.unavailable }
            return 0
        } catch let failure as Failure {
            printError("awi-bench: \(failure.message)")
            return failure.status
        } catch {
            printError("awi-bench: \(error)")
            return ExitStatus.software
        }
    }

    /// Runs the scenarios `options` select and returns the run's document.
    static func measure(_ options: BenchmarkOptions) async throws -> BenchmarkDocument {
        let entries: [ScenarioRegistry.Entry]
        do {
            entries = try ScenarioRegistry.select(scenarios: options.scenarios, suites: options.suites)
        } catch {
            throw Failure(status: ExitStatus.usage, message: error.description)
        }
        var environment = RunEnvironment.capture()
        let start = ResourceUsage.wallSeconds()
        let progress = ProgressReporter(scenarioCount: entries.count)
        let corpus = try loadCorpus(options, progress: progress)
        progress.message("corpus: \(corpus.images.count) images in \(corpus.directory)")
        if options.allocatorTuning {
            progress.message("allocator: ImageLoader.AllocatorTuning.default applied (\(ImageLoader.AllocatorTuning.current != nil ? "in effect" : "NOT in effect"))")
        }
        // The crops of this run only: the quality helper rewrites the index when it runs.
        let crops = entries.contains { $0.scenario is ThumbnailQualityScenario } ? options.qualityCropsDirectory : nil
        if let crops { try? FileManager.default.removeItem(atPath: crops + "/crops.json") }
        let server = BenchmarkServer(corpus: corpus)
        defer { server.stop() }

        var rows: [ResultRow] = []
        var seconds: [String: Double] = [:]
        for (index, entry) in entries.enumerated() {
            progress.beginScenario(entry.name, index: index)
            let began = ResourceUsage.wallSeconds()
            var scenarioOptions = options
            if ScenarioRegistry.runsAsHeadline(entry, in: options) { scenarioOptions.durationScale *= entry.headlineBudget }
            let context = BenchmarkContext(options: scenarioOptions, corpus: corpus, progress: progress, server: server)
            var produced: [ResultRow]
            do {
                produced = try await entry.scenario.run(in: context)
            } catch {
                produced = [.failure(scenario: entry.name, caseName: "-", error: error)]
            }
            seconds[entry.name] = ResourceUsage.wallSeconds() - began
            rows += produced.map { row in
                var row = row
                row.area = entry.area.rawValue
                return row
            }
        }
        progress.finish()
        environment.loadAverageAtEnd = RunEnvironment.loadAverage()
        environment.wallSeconds = ResourceUsage.wallSeconds() - start
        var document = BenchmarkDocument(
            environment: environment, quick: options.quick, durationScale: options.durationScale,
            suites: options.suites.isEmpty && options.scenarios.isEmpty ? ["headline"] : options.suites,
            scenarios: entries.map(\.name), corpus: options.corpusDirectory, rows: rows,
            headline: ScenarioRegistry.headline, images: crops.map(QualityCrops.images(in:)) ?? []
        )
        document.scenarioSeconds = seconds
        return document
    }

    /// The corpus, or the failure with the exit code that says why not.
    private static func loadCorpus(_ options: BenchmarkOptions, progress: ProgressReporter) throws(Failure) -> Corpus {
        var isDirectory: ObjCBool = false
        if let directory = options.corpusDirectory,
           !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) || !isDirectory.boolValue {
            throw Failure(status: ExitStatus.noInput, message: "no folder \(directory) (--corpus)")
        }
        do {
            return try Corpus.load(directory: options.corpusDirectory, progress: progress)
        } catch {
            throw Failure(
                status: options.corpusDirectory == nil ? ExitStatus.ioError : ExitStatus.noInput,
                message: "cannot prepare the corpus: \(error)"
            )
        }
    }

    /// Gives every missed target of `document` its explanation, from what is
    /// known now (a saved run is explained again: its bounds may be better known).
    static func explainMisses(in document: inout BenchmarkDocument) {
        let environment = document.environment
        for index in document.rows.indices where document.rows[index].passed == false {
            let row = document.rows[index]
            document.rows[index].explanation = MissExplanation(row: row, environment: environment, known: TargetBounds.bound(for: row))
        }
        document.summary = ResultTable(rows: document.rows).summaryLine
    }

    /// Everything printed on standard output: the table, the headline, the
    /// missed targets explained, the machine, the comparison, the tally.
    static func text(of document: BenchmarkDocument, comparison: RunComparison?) -> String {
        let table = ResultTable(rows: document.rows)
        var parts = [table.render(), ""]
        let headline = HeadlineText.render(sections: document.headline ?? [], rows: document.rows)
        if !headline.isEmpty { parts.append(headline) }
        let misses = table.renderMisses()
        if !misses.isEmpty { parts += [misses, ""] }
        parts.append("ratio = baseline time / our time on the row's clock (cpu: per-thread or process CPU time; wall: elapsed); interval: the run's own 95 % interval over its interleaved rounds")
        parts.append(document.environment.line)
        if let seconds = document.scenarioSeconds, !seconds.isEmpty {
            parts.append("time per scenario: " + document.scenarios.compactMap { name in seconds[name].map { "\(name) \(Int($0.rounded())) s" } }.joined(separator: ", "))
        }
        if let comparison { parts += ["", comparison.render()] }
        parts.append(table.summaryLine)
        return parts.joined(separator: "\n")
    }

    private static func read(_ path: String) throws(Failure) -> BenchmarkDocument {
        guard FileManager.default.fileExists(atPath: path) else { throw Failure(status: ExitStatus.noInput, message: "no file \(path)") }
        do {
            return try BenchmarkDocument.read(from: URL(fileURLWithPath: path))
        } catch {
            throw Failure(status: error.isUnreadable ? ExitStatus.noInput : ExitStatus.dataError, message: error.description)
        }
    }

    private static func write(_ path: String, _ body: () throws -> Void) throws(Failure) {
        do { try body() } catch { throw Failure(status: ExitStatus.cannotCreate, message: "cannot write \(path): \(error)") }
    }

    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}

extension BenchmarkDocument.ReadError {
    fileprivate var isUnreadable: Bool {
        if case .unreadable = self { true } else { false }
    }
}
