import AWIBenchResults
import Foundation
import Testing

/// The benchmark's HTML report, rendered from a small run saved by
/// `awi-bench --json` (`Fixtures/run.json`: decoding, thumbnails per class
/// against pyvips and Pillow with their quality scores, the loader, one
/// quality crop), first as text, then by headless Chromium.
@Suite("HTMLReport: one offline page with its charts, as Chromium draws it")
struct HTMLReportTests {
    private static let fixtures = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!

    private static func document() throws -> BenchmarkDocument {
        try BenchmarkDocument.read(from: fixtures.appendingPathComponent("run.json"))
    }

    private static func report(_ document: BenchmarkDocument) -> HTMLReport {
        HTMLReport(document: document) { HTMLReport.readImage($0, relativeTo: fixtures) }
    }

    /// How often `needle` occurs in `text`.
    private static func count(_ needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    @Test("one bar per ratio, a dot per class and candidate, percentiles per timed row, the crop embedded, nothing fetched")
    func pageContents() throws {
        let document = try Self.document()
        let html = Self.report(document).render()
        let ratioRows = document.rows.filter { ($0.ratio ?? 0) > 0 }
        let missed = ratioRows.filter { $0.passed == false }
        let timed = document.rows.filter { ($0.p50 ?? 0) > 0 && ($0.p99 ?? 0) > 0 }
        // The fixture's rows, counted by hand: 13 with a ratio (2 missed), 13 timed.
        #expect(ratioRows.count == 13 && missed.count == 2 && timed.count == 13)
        #expect(html.contains("<svg id=\"chart-ratios\""))
        #expect(Self.count("<rect class=\"bar ", in: html) == ratioRows.count)
        #expect(Self.count("<rect class=\"bar missed\"", in: html) == missed.count)
        // One target tick per row with a ratio target (all but the Pillow rows).
        #expect(Self.count("<line class=\"target\"", in: html) == ratioRows.filter { $0.targetRatio != nil }.count)
        // Quality against speed: 4 classes with a speed and a quality row; in
        // each, the library, pyvips and Pillow (the .area route has no speed figure).
        #expect(html.contains("<svg id=\"chart-quality-speed\""))
        #expect(Self.count("<circle class=\"point ", in: html) == 4 * 3)
        #expect(Self.count("<circle class=\"point pyvips\"", in: html) == 4)
        #expect(Self.count("no speed figure: library .area", in: html) == 4)
        #expect(html.contains("<svg id=\"chart-latency\""))
        #expect(Self.count("<circle class=\"p50\"", in: html) == timed.count)
        // The crop, byte for byte, as a data URL; the missed target explained.
        let crop = try Data(contentsOf: Self.fixtures.appendingPathComponent("png-lowest.png"))
        #expect(html.contains("src=\"data:image/png;base64,\(crop.base64EncodedString())\""))
        #expect(html.contains("<tr class=\"action-"))
        // Offline: no script, stylesheet, font or image from anywhere.
        for reference in ["<script", "<link", "src=\"http", "url(", "@import"] {
            #expect(!html.contains(reference), "the page refers to something outside it: \(reference)")
        }
    }

    // Not under the sanitizers (scripts/sanitize sets AWI_TEST_TIME_SCALE):
    // the work is Chromium's, in a process they do not instrument, and CI's
    // time is short. The plain run (scripts/test) has it.
    @Test(
        "headless Chromium keeps every chart in its DOM and draws their colours (screenshot in the output)",
        .disabled(if: ProcessInfo.processInfo.environment["AWI_TEST_TIME_SCALE"] != nil, "sanitizer run: Chromium is not instrumented")
    )
    func chromiumRendersTheCharts() throws {
        let chromium = try #require(
            ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "chromium missing (scripts/install-deps installs Debian's chromium for this test)"
        )
        let convert = try #require(
            ["/usr/bin/convert"].first { FileManager.default.isExecutableFile(atPath: $0) }, "ImageMagick's convert missing"
        )
        let document = try Self.document()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("awi-bench-report-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = try Self.report(document).write(to: folder)
        let profile = folder.appendingPathComponent("profile").path
        let common = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                      "--user-data-dir=\(profile)", "--hide-scrollbars", "--force-device-scale-factor=1"]

        // Given the page as Chromium parsed it
        let dom = String(decoding: try Self.run(chromium, common + ["--dump-dom", page.absoluteString]), as: UTF8.self)
        // Then every chart survived the HTML parser whole
        for id in ["chart-ratios", "chart-quality-speed", "chart-latency"] {
            #expect(dom.contains("<svg id=\"\(id)\""), "no \(id) in Chromium's DOM")
        }
        let ratioRows = document.rows.filter { ($0.ratio ?? 0) > 0 }.count
        #expect(Self.count("<rect class=\"bar ", in: dom) == ratioRows)
        #expect(Self.count("<circle class=\"point ", in: dom) == 12)
        #expect(dom.contains("data:image/png;base64,"))

        // And the screenshot shows each chart's colours: bars met and missed,
        // the pyvips dots, the latency spans (pixels of exactly that colour).
        let screenshot = folder.appendingPathComponent("report.png")
        _ = try Self.run(chromium, common + ["--window-size=1200,5200", "--screenshot=\(screenshot.path)", page.absoluteString])
        let png = try Data(contentsOf: screenshot)
        let kept = FileManager.default.temporaryDirectory.appendingPathComponent("awi-bench-report-screenshot.png")
        try? FileManager.default.removeItem(at: kept)
        try png.write(to: kept)
        print("awi-bench report screenshot: \(kept.path) (\(png.count) bytes)")
        Attachment.record(png, named: "awi-bench-report.png")
        let pixels = try Self.run(convert, [screenshot.path, "-depth", "8", "rgb:-"])
        let counts = Self.pixelCounts(pixels, of: ["2e7d32", "c62828", "ef6c00", "6a1b9a", "1565c0"])
        #expect(counts["2e7d32", default: 0] > 2000, "met bars: \(counts)")
        #expect(counts["c62828", default: 0] > 200, "missed bar: \(counts)")
        #expect(counts["ef6c00", default: 0] > 4 * 80, "pyvips dots: \(counts)")
        #expect(counts["6a1b9a", default: 0] > 500, "latency spans: \(counts)")
    }

    /// How many pixels of raw RGB `bytes` have each colour (hex `rrggbb`).
    private static func pixelCounts(_ bytes: Data, of colours: [String]) -> [String: Int] {
        let wanted = Dictionary(uniqueKeysWithValues: colours.map { (UInt32($0, radix: 16)!, $0) })
        var counts: [String: Int] = [:]
        bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            var index = 0
            while index + 2 < raw.count {
                let value = UInt32(raw[index]) << 16 | UInt32(raw[index + 1]) << 8 | UInt32(raw[index + 2])
                if let name = wanted[value] { counts[name, default: 0] += 1 }
                index += 3
            }
        }
        return counts
    }

    /// Runs `tool` to its end (at most 90 s) and returns its standard output.
    private static func run(_ tool: String, _ arguments: [String]) throws -> Data {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("awi-bench-report-out-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: output.path, contents: nil) else {
            throw ToolFailure(description: "cannot create \(output.path)")
        }
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = handle
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(90)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            throw ToolFailure(description: "\(tool) took more than 90 s")
        }
        guard process.terminationStatus == 0 else {
            throw ToolFailure(description: "\(tool) exited with \(process.terminationStatus)")
        }
        return try Data(contentsOf: output)
    }

    private struct ToolFailure: Error, CustomStringConvertible {
        let description: String
    }
}
