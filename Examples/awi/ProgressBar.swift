import Foundation

/// A one-line progress bar on standard error when it is a terminal, nothing otherwise.
struct ProgressBar {
    let enabled = isatty(STDERR_FILENO) == 1

    /// Redraws the bar for `received` of `expected` bytes.
    func show(received: Int64, expected: Int64?) {
        guard enabled else { return }
        if let expected, expected > 0 {
            let fraction = min(1, Double(received) / Double(expected))
            let filled = Int(fraction * 30)
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: 30 - filled)
            FileHandle.standardError.write(Data("\r[\(bar)] \(Int(fraction * 100))% \(received / 1024) KiB".utf8))
        } else {
            FileHandle.standardError.write(Data("\r\(received / 1024) KiB".utf8))
        }
    }

    /// Erases the bar's line.
    func clear() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
