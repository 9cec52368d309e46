import Foundation
import AWILocking

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
/// the test calls ``tick()``, or when the sleeping task is cancelled (as
/// `Task.sleep` would), so a released store's maintenance task ends instead
/// of staying suspended, with this ticker, until the process exits.
actor Ticker {
    private var waiting: [(id: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    private var nextID: UInt64 = 0
    private var pendingTicks = 0

    /// Number of sleeps waiting now.
    var sleepers: Int { waiting.count }

    func sleep() async {
        if pendingTicks > 0 { pendingTicks -= 1; return }
        let id = nextID
        nextID += 1
        await withTaskCancellationHandler {
            // Registered before this actor can run the cancellation below.
            await withCheckedContinuation { continuation in
                if Task.isCancelled { continuation.resume() } else { waiting.append((id, continuation)) }
            }
        } onCancel: {
            Task { await self.wakeCancelled(id) }
        }
    }

    func tick() {
        if waiting.isEmpty { pendingTicks += 1 } else { waiting.removeFirst().continuation.resume() }
    }

    private func wakeCancelled(_ id: UInt64) {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return }
        waiting.remove(at: index).continuation.resume()
    }
}
