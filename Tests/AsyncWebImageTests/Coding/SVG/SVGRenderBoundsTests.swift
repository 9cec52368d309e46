import AWITestSupport
import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageSVG
#if canImport(Glibc)
import Glibc
#endif

/// Renders that stop: hostile documents refused by their structure before
/// any render, a render past its time limit killed with its worker (no CPU
/// spent after it), renders bounded in number and off the cooperative
/// pool, cancellation reaching the worker.
///
/// Each test's coder runs its workers at a nice value of its own, so the
/// workers it counts are its own whatever other suites render meanwhile.
@Suite("SVGCoder: structure limits, renders that stop", .serialized, .timeLimit(.minutes(1)))
struct SVGRenderBoundsTests {
    /// A turbulence of 40 octaves over a 1000 × 1000 raster: seconds of
    /// librsvg's time on any machine, allowed by coders without filter limits.
    /// Made on each use, not a global: LeakSanitizer cannot see a global
    /// `Data`'s storage (its pointer carries a tag) and reports it at exit.
    static var slow: Data {
        Data("""
        <svg xmlns="http://www.w3.org/2000/svg" width="1000" height="1000"><filter id="f"><feTurbulence baseFrequency="0.01" numOctaves="40"/></filter><rect width="1000" height="1000" filter="url(#f)"/></svg>
        """.utf8)
    }

    static func unlimited(timeout: Duration, renders: Int? = nil, nice: Int) -> SVGCoder {
        SVGCoder(maxFilterPrimitiveCount: .max, maxFilterPixelCount: .max, renderTimeout: timeout, maxConcurrentRenders: renders, renderNice: nice)
    }

    /// `<use>` of `<use>`: `levels` levels of `fanOut` references each.
    static func nestedUses(levels: Int, fanOut: Int) -> Data {
        var svg = #"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="8" height="8"><defs><rect id="l0" width="1" height="1"/>"#
        for level in 1...levels {
            svg += #"<g id="l\#(level)">"# + (0..<fanOut).map { ##"<use xlink:href="#l\##(level - 1)" x="\##($0)"/>"## }.joined() + "</g>"
        }
        return Data((svg + ##"</defs><use href="#l\##(levels)"/></svg>"##).utf8)
    }

    @Test("hostile structures are refused before any render, in milliseconds", arguments: [
        // 10^9 rectangles from 9 levels of 10 references
        ("use fan-out", nestedUses(levels: 9, fanOut: 10), ImageError.tooLarge(.renderedElements, limit: 200_000, actual: nil)),
        // a chain of 20 references, one each
        ("use depth", nestedUses(levels: 20, fanOut: 1), .tooLarge(.referenceDepth, limit: 16, actual: 17)),
        // 2000 octaves of turbulence: seconds per 64 × 64 thumbnail
        ("turbulence", Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="4000"><filter id="f"><feTurbulence baseFrequency="0.01" numOctaves="2000"/></filter><rect width="4000" height="4000" filter="url(#f)"/></svg>"#.utf8),
         .tooLarge(.filterPrimitives, limit: 1000, actual: nil)),
        // a style sheet's filter may apply to every element: 600 of them, a blur each
        ("sheet filter", Data((#"<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><style>rect { filter: url(#b) }</style><filter id="b"><feGaussianBlur stdDeviation="3"/></filter>"# + String(repeating: #"<rect width="1" height="1"/>"#, count: 600) + "</svg>").utf8),
         .tooLarge(.filterPrimitives, limit: 1000, actual: nil)),
        ("cycle", Data(##"<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><g id="a"><use href="#a"/></g></svg>"##.utf8),
         .undecodable(.svg, "references that form a cycle")),
    ] as [(String, Data, ImageError)])
    func structure(name: String, svg: Data, error: ImageError) throws {
        let started = ContinuousClock.now
        #expect(throws: error, "\(name)") { try SVGCoder().decode(svg, options: ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 64, height: 64))) }
        #expect(ContinuousClock.now - started < .milliseconds(500).scaled, "\(name)")
    }

    @Test("the pixels filters would process depend on the raster: refused at 4000 × 4000, rendered at 64 × 64")
    func filterArea() throws {
        let blurred = (0..<10).map { ##"<rect x="\##($0 * 400)" width="400" height="4000" fill="#3060c0" filter="url(#b)"/>"## }.joined()
        let svg = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="4000"><filter id="b"><feGaussianBlur stdDeviation="20"/></filter>\#(blurred)</svg>"#.utf8)
        // 10 applications of a blur (2 each) on 16 M pixels
        #expect(throws: ImageError.tooLarge(.filterPixels, limit: 64 << 20, actual: 320_000_000)) {
            try SVGCoder().decode(svg, options: .init())
        }
        let thumbnail = try SVGCoder().decode(svg, options: ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 64, height: 64)))
        #expect(thumbnail.size == PixelSize(width: 64, height: 64))
        // Drawn: the blue of the strips, opaque
        let centre = try #require(thumbnail.pixel(x: 32, y: 32))
        #expect(centre[3] == 255 && centre[2] > 150 && centre[0] < 100, "\(centre)")
    }

    @Test("a render past its time limit: its worker killed at the deadline, no CPU spent after it")
    func timeoutStopsTheRender() throws {
        let coder = Self.unlimited(timeout: .milliseconds(300), nice: 19)
        let started = ContinuousClock.now
        #expect(throws: ImageError.timeout("rendering the SVG took longer than 0.3 seconds")) { try coder.decode(Self.slow, options: .init()) }
        #expect(ContinuousClock.now - started < .seconds(1.5).scaled)
        // No thread of this process goes on rendering (librsvg 2.54 cannot be stopped in a thread)
        #expect(WorkerProbe.renderThreads().isEmpty)
        // And no worker of this coder is left, or spends CPU
        let before = WorkerProbe.workers(nice: 19)
        Thread.sleep(forTimeInterval: 0.3)
        let after = WorkerProbe.workers(nice: 19)
        #expect(before.isEmpty && after.isEmpty, "\(before) \(after)")
        // The coder (a copy shares its workers) renders again, in a fresh worker
        var patient = coder
        patient.renderTimeout = .seconds(20)
        let small = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4" fill="red"/></svg>"#.utf8)
        #expect(try patient.decode(small, options: .init()).pixel(x: 1, y: 1) == [255, 0, 0, 255])
        #expect(WorkerProbe.workers(nice: 19).count == 1)
    }

    @Test(
        "a render past its memory budget: too large (a 413 in the server), after a fraction of the memory; the worker stays for the next render",
        // The budget is RLIMIT_DATA in the worker: glibc's malloc returns
        // NULL at it, which librsvg reports; a sanitizer's allocator aborts
        // the worker instead (ThreadSanitizer's exit status 66).
        .disabled(if: sanitizerReplacesMalloc, "a sanitizer's allocator aborts at an RLIMIT_DATA budget instead of failing the allocation")
    )
    func memoryBudget() throws {
        // 300 flood results kept to the filter's end: 1.2 GB at 1000 × 1000, over the 256 MiB budget
        let floods = (0..<300).map { ##"<feFlood flood-color="#\##(String(format: "%06x", $0 * 1000))" result="r\##($0)"/>"## }.joined()
        let svg = Data(##"<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="1000"><filter id="f">\##(floods)</filter><rect width="1000" height="1000" filter="url(#f)"/></svg>"##.utf8)
        let coder = Self.unlimited(timeout: .seconds(20), nice: 16)
        #expect(throws: ImageError.tooLarge(.decodedBytes, limit: 256 << 20, actual: nil)) { try coder.decode(svg, options: .init()) }
        #expect(WorkerProbe.workers(nice: 16).count == 1)
    }

    @Test("renders through the loader's scheduling: at most maxConcurrentRenders workers, no cooperative thread held, every deadline counted from the call")
    func scheduledRenders() async throws {
        let coder = Self.unlimited(timeout: .seconds(1), renders: 2, nice: 18)
        let registry = ImageCoderRegistry.builtIn.adding(coder)
        let limiter = ConcurrencyLimiter(limit: 2)
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: ImageError?.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    do {
                        _ = try await registry.decode(Self.slow, options: .init(), limiter: limiter)
                        return nil
                    } catch let error as ImageError {
                        return error
                    }
                }
            }
            // While they run, the cooperative pool still runs other work at once
            try await Task.sleep(for: .milliseconds(300))
            let asked = ContinuousClock.now
            await Task.detached { }.value
            #expect(ContinuousClock.now - asked < .milliseconds(250).scaled)
            #expect(WorkerProbe.workers(nice: 18).count <= 2)
            var errors: [ImageError?] = []
            for try await error in group { errors.append(error) }
            #expect(errors == Array(repeating: .timeout("rendering the SVG took longer than 1.0 seconds"), count: 6))
        }
        // Two at a time would take three seconds; each deadline counts its wait
        #expect(ContinuousClock.now - started < .seconds(2).scaled)
        #expect(WorkerProbe.workers(nice: 18).isEmpty)
    }

    @Test("cancelling the task ends the render and kills its worker")
    func cancellation() async throws {
        let coder = Self.unlimited(timeout: .seconds(20), nice: 17)
        let registry = ImageCoderRegistry.builtIn.adding(coder)
        let task = Task { try await registry.decode(Self.slow, options: .init(), limiter: ConcurrencyLimiter(limit: 2)) }
        #expect(await eventually { WorkerProbe.workers(nice: 17).count == 1 })
        try await Task.sleep(for: .milliseconds(200))
        let cancelled = ContinuousClock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(ContinuousClock.now - cancelled < .milliseconds(500).scaled)
        #expect(WorkerProbe.workers(nice: 17).isEmpty)
    }
}

/// Reads `/proc` for the render workers of this process and its rendering threads.
enum WorkerProbe {
    /// One child process named `awi-svg-render`.
    struct Worker: CustomStringConvertible {
        let pid: Int32
        let state: Character
        let cpuTicks: Int
        var description: String { "\(pid) \(state) \(cpuTicks)" }
    }

    /// This process's workers running at `nice`.
    static func workers(nice: Int) -> [Worker] {
        let parent = getpid()
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> Worker? in
            guard let pid = Int32(entry), let fields = statFields("/proc/\(entry)/stat"), fields.comm == "awi-svg-render",
                  fields.values.count > 17, Int32(fields.values[1]) == parent, Int(fields.values[16]) == nice else { return nil }
            return Worker(pid: pid, state: fields.values[0].first ?? "?", cpuTicks: (Int(fields.values[11]) ?? 0) + (Int(fields.values[12]) ?? 0))
        }
    }

    /// Threads of this process that render SVG themselves (the coder before
    /// its workers: `awi-svg-render`, still running after a timeout).
    static func renderThreads() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { task in
            guard let fields = statFields("/proc/self/task/\(task)/stat"), fields.comm == "awi-svg-render" else { return nil }
            return "\(task) \(fields.values[0])"
        }
    }

    /// The command name and the fields after it (state first) of a `stat` file.
    private static func statFields(_ path: String) -> (comm: String, values: [Substring])? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
              let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")") else { return nil }
        let comm = String(text[text.index(after: open)..<close])
        return (comm, text[text.index(close, offsetBy: 2)...].split(separator: " "))
    }
}
