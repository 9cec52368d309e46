import AsyncWebImage
import Foundation

/// Runs the selected scenarios and prints the table.
enum BenchmarkRunner {
    /// The whole program; returns the exit code (0 even when targets are missed).
    static func main(arguments: [String]) async -> Int32 {
        // A child process of the allocator scenario (see AllocatorScenario).
        if arguments.first == "--allocator-child" {
            return AllocatorScenario.child(Array(arguments.dropFirst()))
        }
        // A child process of the thumbnail-rss scenario (see ThumbnailRSSScenario).
        if arguments.first == "--rss-child" {
            return ThumbnailRSSScenario.child(Array(arguments.dropFirst()))
        }
        let options: BenchmarkOptions
        let scenarios: [any Scenario]
        do {
            options = try BenchmarkOptions.parse(arguments)
            if options.helpOnly {
                print(BenchmarkOptions.usage)
                return 0
            }
            if options.listOnly {
                print(ScenarioRegistry.listing)
                return 0
            }
            scenarios = try ScenarioRegistry.select(options.scenarios)
        } catch {
            printError("awi-bench: \(error)\n\n\(BenchmarkOptions.usage)")
            return 2
        }

        var environment = RunEnvironment.capture()
        let start = ResourceUsage.wallSeconds()
        let progress = ProgressReporter(scenarioCount: scenarios.count)
        let corpus: Corpus
        do {
            corpus = try Corpus.load(directory: options.corpusDirectory, progress: progress)
        } catch {
            printError("awi-bench: cannot prepare the corpus: \(error)")
            return 1
        }
        progress.message("corpus: \(corpus.images.count) images in \(corpus.directory)")
        if options.allocatorTuning {
            progress.message("allocator: ImageLoader.AllocatorTuning.default applied (\(ImageLoader.AllocatorTuning.current != nil ? "in effect" : "NOT in effect"))")
        }
        let server = BenchmarkServer(corpus: corpus)
        defer { server.stop() }
        let context = BenchmarkContext(options: options, corpus: corpus, progress: progress, server: server)

        var table = ResultTable()
        for (index, scenario) in scenarios.enumerated() {
            progress.beginScenario(scenario.name, index: index)
            do {
                table.rows += try await scenario.run(in: context)
            } catch {
                table.rows.append(.failure(scenario: scenario.name, caseName: "-", error: error))
            }
        }
        progress.finish()

        environment.loadAverageAtEnd = RunEnvironment.loadAverage()
        environment.wallSeconds = ResourceUsage.wallSeconds() - start
        print(table.render())
        print("")
        print("ratio = baseline time / our time on the row's clock (cpu: per-thread or process CPU time; wall: elapsed)")
        print(environment.line)
        print(table.summaryLine)
        if let path = options.jsonPath {
            do {
                try table.json(options: options, environment: environment).write(to: URL(fileURLWithPath: path))
            } catch {
                printError("awi-bench: cannot write \(path): \(error)")
                return 1
            }
        }
        return 0
    }

    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
