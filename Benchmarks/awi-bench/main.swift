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

// Everything lives in BenchmarkRunner; top-level code only hands over the
// arguments and the exit code.
exit(await BenchmarkRunner.main(arguments: Array(CommandLine.arguments.dropFirst())))
