import ArgumentParser
import AsyncWebImage
import Glibc

// The allocator scenario's tuned child applies the tuning here, on the main
// thread before any other thread exists: a thread keeps the arena it first
// allocated from, so later tuning cannot move it to the main arena.
if CommandLine.arguments.dropFirst().first == "--allocator-child", CommandLine.arguments.dropFirst(2).first == "tuned" {
    ImageLoader.AllocatorTuning.default.apply()
}
// `--allocator-tuning`: the whole run with the tuning an `ImageLoader` applies by
// default, so coder-level scenarios measure the library as a loader configures it.
if CommandLine.arguments.dropFirst().contains("--allocator-tuning") {
    ImageLoader.AllocatorTuning.default.apply()
}

// Child processes of two scenarios re-run this executable in a mode of their
// own, not part of the command line a user sees.
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--allocator-child" {
    exit(AllocatorScenario.child(Array(arguments.dropFirst())))
}
if arguments.first == "--rss-child" {
    exit(ThumbnailRSSScenario.child(Array(arguments.dropFirst())))
}
// Parsed here rather than through `AwiBenchCommand.main`, which top-level
// code resolves to the synchronous `ParsableCommand.main`.
do {
    let command = try AwiBenchCommand.parse(arguments)
    try await command.execute()
} catch {
    AwiBenchCommand.exit(withError: error)
}
