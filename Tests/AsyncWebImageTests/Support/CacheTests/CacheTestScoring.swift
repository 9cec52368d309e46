import Foundation

/// The cache-tests suite's verdicts and scoring (`test-engine/lib/display.mjs`,
/// `determineTestResult`): a test whose dependency did not pass counts as a
/// dependency failure whatever its own result; a set-up failure is no pass;
/// required tests pass or fail, optional ones (`optimal`, `check`) are
/// reported apart.
enum CacheTestScoring {
    /// One implementation's raw result for a test, as the suite records it.
    enum Result: Sendable, Hashable {
        case pass
        /// A failed check: the error's name (`Setup`, `Assertion`, or another
        /// for a harness failure) and message.
        case fail(name: String, message: String)

        /// A result as a published results file writes it.
        init?(json: Any) {
            if let passed = json as? Bool {
                self = passed ? .pass : .fail(name: "", message: "false")
            } else if let list = json as? [Any], let name = list.first as? String {
                self = .fail(name: name, message: list.dropFirst().first as? String ?? "")
            } else {
                return nil
            }
        }
    }

    /// The suite's verdicts.
    enum Verdict: String, Sendable {
        case untested, pass, fail, optionalFail = "optional_fail", yes, no
        case setupFail = "setup_fail", harnessFail = "harness_fail", dependencyFail = "dependency_fail", retry

        /// Whether the verdict counts as passed (the suite's `passTypes`).
        var passed: Bool { self == .pass || self == .yes }
    }

    /// `determineTestResult` with dependencies honoured (the suite's
    /// scoring), or — `honouringDependencies` false — the test's own result,
    /// whatever its dependencies' (what a cache that breaks one premise on
    /// purpose does on the tests that assume it).
    static func verdict(_ id: String, tests: [String: CacheTestDefinition], results: [String: Result], honouringDependencies: Bool = true) -> Verdict {
        var seen: Set<String> = []
        return verdict(id, tests: tests, results: results, honouringDependencies: honouringDependencies, visiting: &seen)
    }

    private static func verdict(
        _ id: String, tests: [String: CacheTestDefinition], results: [String: Result], honouringDependencies: Bool, visiting: inout Set<String>
    ) -> Verdict {
        guard let test = tests[id], let result = results[id] else { return .untested }
        // Bounded by the number of tests: a dependency cycle is a failure, never a loop.
        guard visiting.insert(id).inserted else { return .dependencyFail }
        defer { visiting.remove(id) }
        for dependency in test.dependsOn where honouringDependencies
            && !verdict(dependency, tests: tests, results: results, honouringDependencies: true, visiting: &visiting).passed {
            return .dependencyFail
        }
        if case .fail(let name, let message) = result {
            if name == "Setup" { return message == "retry" ? .retry : .setupFail }
            if name.isEmpty { return .harnessFail }
        }
        let passed = result == .pass
        switch test.kind {
        case .required: return passed ? .pass : .fail
        case .optimal: return passed ? .pass : .optionalFail
        case .check: return passed ? .yes : .no
        }
    }

    /// Passed and total, required and optional apart, over `ids`.
    struct Score: Sendable, Equatable, CustomStringConvertible {
        var requiredPassed = 0
        var requiredTotal = 0
        var optionalPassed = 0
        var optionalTotal = 0

        var description: String { "\(requiredPassed)/\(requiredTotal) required, \(optionalPassed)/\(optionalTotal) optional" }
    }

    /// The score of `results` on `ids`, by the suite's verdicts (or by each
    /// test's own, `honouringDependencies` false).
    static func score(_ ids: [String], tests: [String: CacheTestDefinition], results: [String: Result], honouringDependencies: Bool = true) -> Score {
        var score = Score()
        for id in ids {
            guard let test = tests[id] else { continue }
            let passed = verdict(id, tests: tests, results: results, honouringDependencies: honouringDependencies).passed
            if test.kind == .required {
                score.requiredTotal += 1
                if passed { score.requiredPassed += 1 }
            } else {
                score.optionalTotal += 1
                if passed { score.optionalPassed += 1 }
            }
        }
        return score
    }

    /// A published results file (`results/<name>.json`).
    static func loadResults(_ data: Data) throws -> [String: Result] {
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [:] }
        var results: [String: Result] = [:]
        for (id, value) in object {
            if let result = Result(json: value) { results[id] = result }
        }
        return results
    }
}
