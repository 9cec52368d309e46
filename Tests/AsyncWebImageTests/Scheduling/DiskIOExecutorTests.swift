import Foundation
import Testing
@testable import AsyncWebImage

/// An actor on a `DiskIOExecutor`, reporting the thread its methods run on.
private actor ThreadReporter {
    private let executor: DiskIOExecutor
    private var runs = 0

    init(name: String) { executor = DiskIOExecutor(name: name) }

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// The kernel's name of the current thread (the first 15 bytes of the name given).
    func threadName() -> String {
        runs += 1
        return currentThreadName()
    }

    func count() -> Int { runs }
}

private func currentThreadName() -> String {
    ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "")
        .trimmingCharacters(in: .whitespacesAndNewlines)
}

@Suite("DiskIOExecutor", .timeLimit(.minutes(1)))
struct DiskIOExecutorTests {
    @Test("an actor on it runs on its dedicated thread, not on the cooperative pool")
    func dedicatedThread() async {
        let reporter = ThreadReporter(name: "awi-io-test")
        #expect(await reporter.threadName() == "awi-io-test")
        #expect(currentThreadName() != "awi-io-test")
    }

    @Test("jobs from many tasks all run, one at a time, in isolation")
    func manyJobs() async {
        let reporter = ThreadReporter(name: "awi-io-many")
        await withTaskGroup(of: String.self) { group in
            for _ in 0..<200 { group.addTask { await reporter.threadName() } }
            for await name in group { #expect(name == "awi-io-many") }
        }
        #expect(await reporter.count() == 200)
    }

    @Test("the thread ends when its actor is released")
    func threadEnds() async {
        func threads(named name: String) -> Int {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            return tasks.filter {
                (try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) == name
            }.count
        }
        do {
            let reporter = ThreadReporter(name: "awi-io-ends")
            _ = await reporter.threadName()
            #expect(threads(named: "awi-io-ends") == 1)
        }
        #expect(await eventually { threads(named: "awi-io-ends") == 0 })
    }
}
