import Foundation
import Testing
import AsyncWebImage
import AWITestSupport

/// The allocator settings are process-wide and settled by the first loader,
/// so every case runs in a fresh helper process (`awi-allocator-probe`) and
/// observes glibc's allocator itself: how many bytes it mmap'd for an 8 MiB
/// buffer (`mallinfo2().hblkhd`), and the resident set (`/proc/self/statm`).
@Suite(
    "ImageLoader.AllocatorTuning", .timeLimit(.minutes(1)),
    .disabled(if: sanitizerReplacesMalloc, "ThreadSanitizer and AddressSanitizer replace glibc's malloc: mallopt and mallinfo2 say nothing about theirs")
)
struct AllocatorTuningTests {
    private static let mebibyte = 1024 * 1024

    /// Runs the probe in `mode` and returns its output's `name value` pairs.
    private func probe(_ mode: String) throws -> [String: String] {
        let binaries = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let helper = binaries.appendingPathComponent("awi-allocator-probe")
        try #require(FileManager.default.isExecutableFile(atPath: helper.path), "missing \(helper.path)")
        let process = Process()
        let output = Pipe()
        process.executableURL = helper
        process.arguments = [mode]
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "probe \(mode) exited \(process.terminationStatus): \(text)")
        let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
        var values: [String: String] = [:]
        for index in stride(from: 0, to: words.count - 1, by: 2) { values[words[index]] = words[index + 1] }
        return values
    }

    @Test("a default loader leaves glibc's malloc as it was: no tuning in effect, glibc maps 8 MiB and 64 MiB buffers itself")
    func defaultLoaderLeavesAllocatorAlone() throws {
        // Given a process whose only loader has the default configuration
        // When it allocates and writes 8 MiB, then 64 MiB
        let values = try probe("default")
        // Then nothing was tuned: glibc's own threshold mapped both
        #expect(values["current"] == "none")
        let mapped = try #require(values["mapped"].flatMap { Int($0) })
        #expect(mapped >= 8 * Self.mebibyte)
        let mapped64 = try #require(values["mapped64"].flatMap { Int($0) })
        #expect(mapped64 >= 64 * Self.mebibyte)
    }

    @Test("a loader asking for ImageLoader.AllocatorTuning.default applies it: 8 MiB and 64 MiB buffers come from the heap, not from their own mmap")
    func tunedLoaderTunes() throws {
        // Given a process whose only loader asks for the default tuning
        // When it allocates and writes 8 MiB, then 64 MiB (past glibc's own 32 MiB ceiling)
        let values = try probe("tuned")
        // Then the default tuning is in effect and glibc mapped nothing for either
        #expect(values["current"] == String(ImageLoader.AllocatorTuning.default.mmapThreshold))
        #expect(values["mapped"] == "0")
        #expect(values["mapped64"] == "0")
    }

    @Test("an opted-out loader leaves the allocator alone: glibc maps the 8 MiB buffer itself")
    func optOutLeavesAllocatorAlone() throws {
        // Given a process whose only loader has allocatorTuning = nil
        // When it allocates and writes 8 MiB
        let values = try probe("optout")
        // Then no tuning is in effect and glibc's default threshold (128 KiB) mapped it
        #expect(values["current"] == "none")
        let mapped = try #require(values["mapped"].flatMap { Int($0) })
        #expect(mapped >= 8 * Self.mebibyte)
        let mapped64 = try #require(values["mapped64"].flatMap { Int($0) })
        #expect(mapped64 >= 64 * Self.mebibyte)
    }

    @Test("the tuning is applied once: the first loader's wins, later loaders change nothing")
    func appliedOnce() throws {
        // Given loaders created in order with a 16 MiB threshold, a 256 KiB one, and none
        // When the process allocates and writes 8 MiB
        let values = try probe("once")
        // Then the first loader's 16 MiB threshold is in effect: the buffer
        // comes from the heap (the second's 256 KiB would have mapped it)
        #expect(values["current"] == String(16 * Self.mebibyte))
        #expect(values["mapped"] == "0")
        #expect(values["loaders"] == "3")
    }

    @Test("releaseFreeMemory returns a freed burst of buffers the tuning kept resident")
    func releaseFreeMemoryLowersRSS() throws {
        // Given a tuned process that wrote 48 buffers of 1 MiB and freed them
        let values = try probe("release")
        let burst = try #require(values["burst"].flatMap { Int($0) })
        let freed = try #require(values["freed"].flatMap { Int($0) })
        let released = try #require(values["released"].flatMap { Int($0) })
        // Then freeing alone kept them resident (the heap keeps them for reuse)
        #expect(burst - freed < 16 * Self.mebibyte, "burst \(burst) freed \(freed)")
        // And releaseFreeMemory gave at least 40 MiB back
        #expect(values["trimmed"] == "1")
        #expect(freed - released >= 40 * Self.mebibyte, "freed \(freed) released \(released)")
    }
}
