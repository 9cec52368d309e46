import Glibc

// huffman-proto verify FILE...                       exactness against libjpeg-turbo
// huffman-proto bench [--rounds N] FILE...           speed against libjpeg-turbo at 1/8
// huffman-proto fuzz [--iterations N] [--seed S] FILE...
// huffman-proto loop-turbo-yuv [--count N] FILE       libjpeg-turbo alone, for perf
func run(_ all: [String]) -> Int32 {
    var arguments = all
    guard let command = arguments.first else {
        print("usage: huffman-proto verify|bench|fuzz [options] FILE...")
        return 2
    }
    arguments.removeFirst()
    func option(_ name: String, _ fallback: Int) -> Int {
        guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count,
              let value = Int(arguments[index + 1]) else { return fallback }
        arguments.removeSubrange(index...index + 1)
        return value
    }
    switch command {
    case "verify":
        return Commands.verify(arguments)
    case "bench":
        let rounds = option("--rounds", 9)
        Commands.bench(arguments, rounds: rounds)
        return 0
    case "fuzz":
        let iterations = option("--iterations", 20_000)
        let seed = option("--seed", 1)
        return Commands.fuzz(arguments, iterations: iterations, seed: UInt64(seed))
    case "loop-turbo-yuv":
        // For profiling libjpeg-turbo alone: its raw 1/8 decode of one file, N times.
        let count = option("--count", 100)
        Commands.loopTurboYUV(arguments[0], count: count)
        return 0
    default:
        print("unknown command \(command)")
        return 2
    }
}
exit(run(Array(CommandLine.arguments.dropFirst())))
