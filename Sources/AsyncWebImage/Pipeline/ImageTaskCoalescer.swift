import Synchronization

/// The second level of coalescing: one piece of work (disk read or
/// download, then decode and transform) per distinct result, shared by every
/// caller that asks for that result while it runs.
///
/// A keyed task map in the style of Nuke's `TaskPool`: an entry holds the
/// subscribers' channels and the work's task; it leaves the map when the
/// work finishes, and the work is cancelled when its last subscriber leaves.
/// A `Mutex` rather than an actor guards the map: every operation is a few
/// dictionary updates, and the hot path (a thousand callers joining one
/// load) must not queue behind actor hops. No user code and no I/O ever runs
/// under the lock; channels are fed after it is released.
final class ImageTaskCoalescer: Sendable {
    typealias Key = ImageLoadRequest.TaskKey

    /// What a piece of work uses to talk to its subscribers.
    struct Handle: Sendable {
        let coalescer: ImageTaskCoalescer
        let key: Key
        let generation: UInt64

        /// Whether any current subscriber wants previews.
        var wantsPreviews: Bool { coalescer.wantsPreviews(self) }

        /// Sends progress to every subscriber (late joiners get the last one).
        func progress(received: Int64, expected: Int64?) {
            coalescer.broadcast(self, .progress(received: received, expected: expected))
        }

        /// Sends a preview to the subscribers that want previews.
        func preview(_ image: Image) {
            coalescer.broadcast(self, .preview(image))
        }

        /// Ends the work: every subscriber gets `response` (if any) and the end.
        func finish(_ result: Result<ImageResponse?, any Error>) {
            coalescer.finish(self, result)
        }
    }

    private struct Subscriber {
        let channel: ImageEventChannel
        let wantsPreviews: Bool
    }

    private struct Entry {
        let generation: UInt64
        var subscribers: [UInt64: Subscriber] = [:]
        var task: Task<Void, Never>?
        var lastProgress: ImageEvent?
        var lastPreview: Image?
        var previewSubscribers = 0
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var nextID: UInt64 = 0
        var started = 0
    }

    private let state = Mutex(State())

    init() {}

    /// How many distinct pieces of work are running.
    var count: Int { state.withLock { $0.entries.count } }

    /// How many pieces of work were ever started (joins do not count).
    var started: Int { state.withLock { $0.started } }

    /// Subscribes `channel` to the work for `key`, starting it with `work` if
    /// none runs. The channel is unsubscribed when its consumer goes away.
    func subscribe(
        _ key: Key,
        channel: ImageEventChannel,
        wantsPreviews: Bool,
        work: @escaping @Sendable (Handle) async -> Void
    ) {
        enum Outcome { case joined(ImageEvent?, Image?), created(Handle) }
        let (outcome, subscriberID) = state.withLock { state -> (Outcome, UInt64) in
            state.nextID &+= 1
            let id = state.nextID
            let subscriber = Subscriber(channel: channel, wantsPreviews: wantsPreviews)
            if var entry = state.entries[key] {
                entry.subscribers[id] = subscriber
                if wantsPreviews { entry.previewSubscribers += 1 }
                state.entries[key] = entry
                return (.joined(entry.lastProgress, wantsPreviews ? entry.lastPreview : nil), id)
            }
            state.nextID &+= 1
            var entry = Entry(generation: state.nextID)
            entry.subscribers[id] = subscriber
            entry.previewSubscribers = wantsPreviews ? 1 : 0
            state.entries[key] = entry
            state.started += 1
            return (.created(Handle(coalescer: self, key: key, generation: entry.generation)), id)
        }
        switch outcome {
        case .joined(let progress, let preview):
            if let progress { channel.send(progress) }
            if let preview { channel.send(.preview(preview)) }
            channel.onTermination { [weak self] in self?.leave(key, generation: nil, subscriber: subscriberID) }
        case .created(let handle):
            channel.onTermination { [weak self] in self?.leave(key, generation: handle.generation, subscriber: subscriberID) }
            let task = Task { await work(handle) }
            let orphaned = state.withLock { state -> Bool in
                guard state.entries[key]?.generation == handle.generation else { return true }
                state.entries[key]?.task = task
                return false
            }
            // Every subscriber left before the task was recorded.
            if orphaned { task.cancel() }
        }
    }

    private func leave(_ key: Key, generation: UInt64?, subscriber: UInt64) {
        let task = state.withLock { state -> Task<Void, Never>? in
            guard var entry = state.entries[key], let removed = entry.subscribers.removeValue(forKey: subscriber) else { return nil }
            if removed.wantsPreviews { entry.previewSubscribers -= 1 }
            if entry.subscribers.isEmpty {
                state.entries[key] = nil
                return entry.task
            }
            state.entries[key] = entry
            return nil
        }
        task?.cancel()
    }

    private func wantsPreviews(_ handle: Handle) -> Bool {
        state.withLock { state in
            guard let entry = state.entries[handle.key], entry.generation == handle.generation else { return false }
            return entry.previewSubscribers > 0
        }
    }

    private func broadcast(_ handle: Handle, _ event: ImageEvent) {
        let isPreview: Bool
        if case .preview = event { isPreview = true } else { isPreview = false }
        let channels = state.withLock { state -> [ImageEventChannel] in
            guard var entry = state.entries[handle.key], entry.generation == handle.generation else { return [] }
            if case .preview(let image) = event { entry.lastPreview = image } else { entry.lastProgress = event }
            state.entries[handle.key] = entry
            return entry.subscribers.values.compactMap { !isPreview || $0.wantsPreviews ? $0.channel : nil }
        }
        for channel in channels { channel.send(event) }
    }

    private func finish(_ handle: Handle, _ result: Result<ImageResponse?, any Error>) {
        let channels = state.withLock { state -> [ImageEventChannel] in
            guard let entry = state.entries[handle.key], entry.generation == handle.generation else { return [] }
            state.entries[handle.key] = nil
            return entry.subscribers.values.map(\.channel)
        }
        for channel in channels {
            switch result {
            case .success(let response):
                if let response { channel.send(.finished(response)) }
                channel.finish()
            case .failure(let error):
                channel.finish(throwing: error)
            }
        }
    }
}
