/// A case could not be measured: its set-up failed, or the two sides did
/// not do the same work (then comparing them would be meaningless). Shown
/// as an error row; the run goes on.
struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
