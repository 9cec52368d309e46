import Glibc

// Everything lives in BenchmarkRunner; top-level code only hands over the
// arguments and the exit code.
exit(await BenchmarkRunner.main(arguments: Array(CommandLine.arguments.dropFirst())))
