import Foundation
import Logging
import AWILocking
import Synchronization

// The helpers both test targets use (free loopback ports, the sanitizer
// time scale, `eventually`, a recording log handler) live in AWITestSupport.
@_exported import AWITestSupport

/// This process's resident set now and at its peak since the last
/// ``resetPeak()``, from `/proc/self/status` (bytes).
enum ResidentMemory {
    static var current: Int { field("VmRSS:") }
    static var peak: Int { field("VmHWM:") }

    /// Resets the peak to the current resident set (`/proc/self/clear_refs`, 5).
    static func resetPeak() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    private static func field(_ name: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            let digits = line.dropFirst(name.count).trimmingCharacters(in: .whitespaces).split(separator: " ").first
            return (digits.flatMap { Int($0) } ?? 0) * 1024
        }
        return 0
    }
}
