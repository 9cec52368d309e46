/// Thrown by a scenario that cannot run on this corpus or machine (no
/// progressive JPEG in a `--corpus` folder, no curl binary): shown as
/// "skip" with the reason, not as an error.
struct ScenarioSkipped: Error, CustomStringConvertible {
    var reason: String
    init(_ reason: String) { self.reason = reason }
    var description: String { reason }
}
