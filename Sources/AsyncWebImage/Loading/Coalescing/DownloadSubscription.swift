import Synchronization

/// One subscriber's membership of a transfer; leaving happens when it is
/// released, so a subscriber that stops iterating (or whose task ends)
/// always leaves.
final class DownloadSubscription: Sendable {
    let transfer: DownloadTransfer
    let id: DownloadTransfer.Machine.SubscriberID
    /// Whether this subscriber has raised the transfer to `.high` (once is enough).
    private let raised = Atomic<Bool>(false)

    init(transfer: DownloadTransfer, id: DownloadTransfer.Machine.SubscriberID) {
        self.transfer = transfer
        self.id = id
    }

    deinit {
        transfer.leave(id)
    }

    func next() async throws -> DownloadEvent? {
        try await transfer.next(id)
    }

    /// The next event, promoting the transfer to `.high` if the waiting
    /// task's priority is escalated to `.high` or above meanwhile (a
    /// higher-priority task now awaits it).
    func nextFollowingTaskPriority() async throws -> DownloadEvent? {
        try await withTaskPriorityEscalationHandler {
            // An escalation that came before this handler was installed
            // (between two waits) shows in the task's priority instead.
            if Task.currentPriority >= .high { raiseOnce() }
            return try await transfer.next(id)
        } onPriorityEscalated: { [self] _, new in
            if new >= .high { raiseOnce() }
        }
    }

    private func raiseOnce() {
        guard !raised.exchange(true, ordering: .relaxed) else { return }
        transfer.raise(id, to: .high)
    }
}
