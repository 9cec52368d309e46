import Foundation

/// How many times slower than a normal build the code under test may run:
/// `AWI_TEST_TIME_SCALE` (a positive integer, set by `scripts/sanitize`:
/// ThreadSanitizer slows the suite down 5-15x, AddressSanitizer 2-3x), else 1.
///
/// For bounds that are themselves under test ("the server sees the client
/// leave within 1 s"), so a sanitizer run still proves the latency is
/// bounded, and for safety nets such as ``Gate``'s. Waits for evidence
/// (`eventually`, `waitUntil` for a count) need no scaling: they end as soon
/// as the evidence is there.
public let testTimeScale: Int = {
    guard let text = ProcessInfo.processInfo.environment["AWI_TEST_TIME_SCALE"],
          let scale = Int(text), scale > 0 else { return 1 }
    return scale
}()

extension Duration {
    /// This bound stretched by ``testTimeScale`` (itself in a normal run).
    public var scaled: Duration { self * testTimeScale }
}
