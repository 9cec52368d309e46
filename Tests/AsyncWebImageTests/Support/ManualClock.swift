import Foundation

/// A wall clock the test moves by hand, for the disk store's dates.
final class ManualDate: Sendable {
    private let current: Locked<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        current = Locked(start)
    }

    var now: Date { current.value }

    func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    /// The closure a store takes.
    var provider: @Sendable () -> Date { { [self] in now } }
}

/// Stands in for `Task.sleep` in periodic work: each `sleep` returns only when
/// the test calls ``tick()``, so "an interval passed" is an explicit step.
actor Ticker {
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var pendingTicks = 0

    /// Number of sleeps waiting now.
    var sleepers: Int { waiting.count }

    func sleep() async {
        if pendingTicks > 0 { pendingTicks -= 1; return }
        await withCheckedContinuation { waiting.append($0) }
    }

    func tick() {
        if waiting.isEmpty { pendingTicks += 1 } else { waiting.removeFirst().resume() }
    }
}
