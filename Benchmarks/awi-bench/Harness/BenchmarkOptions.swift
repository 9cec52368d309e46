/// The command line, parsed by hand (the package takes no dependency for it).
struct BenchmarkOptions: Sendable {
    /// Scenario names from `--scenario` (empty: the default set).
    var scenarios: [String] = []
    /// Where `--json` writes.
    var jsonPath: String?
    /// A folder of images to use instead of the generated corpus.
    var corpusDirectory: String?
    /// Fewer rounds and shorter budgets: a smoke run for CI.
    var quick = false
    /// Multiplies every time budget.
    var durationScale = 1.0
    /// `--allocator-tuning`: ``ImageLoader/AllocatorTuning/default`` was applied at start (main.swift).
    var allocatorTuning = false
    /// `--scenario list` or `--help` was given: print and exit.
    var listOnly = false
    var helpOnly = false

    static let usage = """
        usage: awi-bench [--scenario NAME]... [--json FILE] [--corpus DIR] [--quick] [--duration-scale X] [--allocator-tuning]

          --scenario NAME     run only this scenario (repeatable); `--scenario list` lists them
          --json FILE         also write the results as JSON to FILE
          --corpus DIR        use the images in DIR instead of the generated corpus
          --quick             fewer iterations (a smoke run for CI)
          --duration-scale X  multiply every time budget by X (e.g. 3 for steadier figures)
          --allocator-tuning  apply ImageLoader.AllocatorTuning.default for the whole run
                              (a loader applies it only when its configuration asks;
                              the thumbnail server does)

        Ratios are speed relative to the baseline measured in the same run (baseline
        time / our time; above 1 = faster). The exit code is 0 even when a target is
        missed: this is a measurement, not a test.
        """

    /// Parses `arguments` (without the program name).
    static func parse(_ arguments: [String]) throws(UsageError) -> BenchmarkOptions {
        var options = BenchmarkOptions()
        var remaining = arguments[...]
        func value(for flag: String) throws(UsageError) -> String {
            guard let next = remaining.popFirst() else { throw UsageError("\(flag) needs a value") }
            return next
        }
        while let argument = remaining.popFirst() {
            // Accept --flag=value as well as --flag value.
            var flag = argument
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                flag = String(argument[..<equals])
                remaining.insert(String(argument[argument.index(after: equals)...]), at: remaining.startIndex)
            }
            switch flag {
            case "--scenario", "-s":
                let name = try value(for: flag)
                if name == "list" { options.listOnly = true } else { options.scenarios.append(name) }
            case "--json":
                options.jsonPath = try value(for: flag)
            case "--corpus":
                options.corpusDirectory = try value(for: flag)
            case "--quick":
                options.quick = true
            case "--allocator-tuning":
                options.allocatorTuning = true
            case "--duration-scale":
                let text = try value(for: flag)
                guard let scale = Double(text), scale > 0, scale <= 100 else {
                    throw UsageError("--duration-scale needs a number in (0, 100], not \(text)")
                }
                options.durationScale = scale
            case "--help", "-h":
                options.helpOnly = true
            default:
                throw UsageError("unknown argument \(argument)")
            }
        }
        return options
    }
}
