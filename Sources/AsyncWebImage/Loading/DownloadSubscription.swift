/// One subscriber's membership of a transfer; leaving happens when it is
/// released, so a subscriber that stops iterating (or whose task ends)
/// always leaves.
final class DownloadSubscription: Sendable {
    let transfer: DownloadTransfer
    let id: DownloadTransfer.Machine.SubscriberID

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
            try await transfer.next(id)
        } onPriorityEscalated: { [transfer, id] _, new in
            if new >= .high { transfer.raise(id, to: .high) }
        }
    }
}
