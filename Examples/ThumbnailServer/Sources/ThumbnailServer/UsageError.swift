/// A command line, environment or configuration file the server cannot
/// run with: printed on standard error with ``exitCode``.
struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    let message: String

    init(_ message: String) { self.message = message }

    var description: String { message }

    /// `EX_USAGE` from sysexits.h: the command was used incorrectly.
    static let exitCode: Int32 = 64
}
