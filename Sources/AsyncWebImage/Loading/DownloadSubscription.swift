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
}
