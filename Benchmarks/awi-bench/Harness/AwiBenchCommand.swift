import ArgumentParser

/// The `awi-bench` command line, on swift-argument-parser.
///
/// Exit codes follow sysexits(3): 0 the run measured what it was asked
/// (missed targets and regressions included: it is a measurement, not a
/// test); 64 a bad command line; 65 a `--compare` or `--from` file that is
/// not awi-bench's JSON; 66 a missing `--corpus` folder (or one without
/// images) or a missing `--compare`/`--from` file; 69 every selected
/// scenario was skipped (a tool is missing); 70 a case failed to run; 73 the
/// JSON or the report cannot be written; 74 the corpus cannot be generated.
struct AwiBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "awi-bench",
        abstract: "Measures AsyncWebImage against its baselines (raw codec calls, pyvips, Pillow, curl, thumbor), side by side in one run.",
        discussion: """
            Without --scenario or --suite, runs the headline suite (about 5 minutes on 2 cores): thumbnails \
            per class against pyvips and Pillow with their quality, decoding against the raw codec calls, \
            the loader's memory hit, disk hit and coalescing, and the thumbnail server against thumbor when \
            thumbor is installed. --full runs every scenario; --list shows them.

            Ratios are speed relative to the baseline measured in the same run (baseline time / our time; \
            above 1 = faster), with the run's own 95 % interval. Every missed target is explained: what \
            bounds it and whether it needs action.

            Exit codes (sysexits): 0 measured (targets missed or not); 64 bad command line; 65 a --compare \
            or --from file that is not awi-bench JSON; 66 a missing input (corpus folder, JSON file); \
            69 every selected scenario skipped; 70 a case failed to run; 73 output not writable; \
            74 the corpus could not be generated.
            """
    )

    @Option(name: [.short, .long], help: ArgumentHelp("Run this scenario (repeatable; `--scenario list` lists them).", valueName: "name"))
    var scenario: [String] = []

    @Option(help: ArgumentHelp("Run this suite: headline, full, or an area (decoding, thumbnails, caches, network, loader, animation, server); repeatable.", valueName: "name"))
    var suite: [String] = []

    @Flag(help: "Run every scenario (the same as --suite full).")
    var full = false

    @Flag(help: "List the suites and scenarios, then exit.")
    var list = false

    @Option(help: ArgumentHelp("Also write the results as JSON to this file.", valueName: "file"))
    var json: String?

    @Option(help: ArgumentHelp("Write a self-contained HTML report (index.html, with results.json and the quality crops) into this folder.", valueName: "dir"))
    var report: String?

    @Option(help: ArgumentHelp("Compare with a run saved by --json: per-row changes, marked as regressions or improvements when beyond both runs' noise.", valueName: "base.json"))
    var compare: String?

    @Option(help: ArgumentHelp("Run nothing: print (and --report, --compare) the run saved in this file by --json.", valueName: "run.json"))
    var from: String?

    @Option(help: ArgumentHelp("Use the images in this folder instead of the generated corpus.", valueName: "dir"))
    var corpus: String?

    @Flag(help: "Fewer rounds and shorter budgets (a smoke run).")
    var quick = false

    @Option(help: ArgumentHelp("Multiply every time budget by this (e.g. 3 for steadier figures), in (0, 100].", valueName: "x"))
    var durationScale = 1.0

    @Flag(help: "Apply ImageLoader.AllocatorTuning.default for the whole run (a loader applies it only when its configuration asks; the thumbnail server does).")
    var allocatorTuning = false

    /// The options the runner and the scenarios read.
    var options: BenchmarkOptions {
        var options = BenchmarkOptions()
        options.scenarios = scenario.filter { $0 != "list" }
        options.suites = suite + (full ? ["full"] : [])
        options.jsonPath = json
        options.reportDirectory = report
        options.comparePath = compare
        options.corpusDirectory = corpus
        options.quick = quick
        options.durationScale = durationScale
        options.allocatorTuning = allocatorTuning
        return options
    }

    func validate() throws {
        guard durationScale > 0, durationScale <= 100 else {
            throw ValidationError("--duration-scale needs a number in (0, 100], not \(durationScale)")
        }
        if from != nil, !scenario.isEmpty || !suite.isEmpty || full || corpus != nil || quick {
            throw ValidationError("--from reads a finished run: it takes no --scenario, --suite, --full, --corpus or --quick")
        }
        do {
            _ = try ScenarioRegistry.select(scenarios: options.scenarios, suites: options.suites)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run() async throws {
        try await execute()
    }

    /// Lists, or runs the benchmark and throws its exit code when it is not 0.
    func execute() async throws {
        if list || scenario.contains("list") {
            print(ScenarioRegistry.listing)
            return
        }
        let code = await BenchmarkRunner.run(options, from: from)
        if code != 0 { throw ExitCode(code) }
    }
}
