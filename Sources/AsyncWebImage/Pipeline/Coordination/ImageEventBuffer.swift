/// The pure state of one consumer's event queue: what is waiting to be
/// delivered, with stale progress and previews coalesced away.
///
/// A slow consumer must see the newest preview, never a backlog of stale
/// ones, yet must never lose a final response or the last progress value.
/// So progress and previews are *replaceable*: a newer one overwrites an
/// undelivered older one, and a final response drops undelivered previews
/// (the final image supersedes them) but keeps the latest progress ahead of
/// it. Final responses and the end are never dropped. The queue therefore
/// holds at most one progress and one preview per final response.
struct ImageEventBuffer {
    private var queue: [LoadEvent] = []
    /// Index of the first event after the last final response: only events
    /// from here on may be replaced.
    private var replaceableFrom = 0
    private(set) var end: End?

    /// How the sequence ends once the queue is drained.
    enum End {
        case finished
        case failed(any Error)
    }

    var isEmpty: Bool { queue.isEmpty }

    /// Whether nothing more can be added.
    var isClosed: Bool { end != nil }

    mutating func append(_ event: LoadEvent) {
        guard end == nil else { return }
        switch event {
        case .progress:
            if let index = queue[replaceableFrom...].firstIndex(where: { if case .progress = $0 { true } else { false } }) {
                queue[index] = event
            } else {
                queue.append(event)
            }
        case .preview:
            if let index = queue[replaceableFrom...].firstIndex(where: { if case .preview = $0 { true } else { false } }) {
                queue[index] = event
            } else {
                queue.append(event)
            }
        case .finished:
            let pending = queue[replaceableFrom...].filter { if case .preview = $0 { false } else { true } }
            queue.removeSubrange(replaceableFrom...)
            queue.append(contentsOf: pending)
            queue.append(event)
            replaceableFrom = queue.count
        }
    }

    /// Ends the sequence after what is queued.
    mutating func close(_ end: End) {
        guard self.end == nil else { return }
        self.end = end
    }

    /// Drops everything: the consumer has gone.
    mutating func cancel() {
        queue.removeAll()
        replaceableFrom = 0
        if end == nil { end = .finished }
    }

    /// The next event to deliver, if any.
    mutating func popFirst() -> LoadEvent? {
        guard !queue.isEmpty else { return nil }
        replaceableFrom = max(0, replaceableFrom - 1)
        return queue.removeFirst()
    }
}
