/// The table of ``ImageTaskCoalescer`` with no I/O and no tasks of its own:
/// which work runs per key, who subscribes to it, what late joiners must be
/// sent. Every mutation returns what the caller must do (start work, feed
/// sinks, resume or cancel), so each transition is testable on plain values.
///
/// `Sink` is where a subscriber's events go (a channel or a continuation in
/// the coalescer; any value in tests); `Work` is the handle of running work
/// (a `Task` in the coalescer).
struct ImageTaskCoalescerStateMachine<Key: Hashable, Sink, Work> {
    typealias SubscriberID = UInt64

    struct Subscriber {
        let sink: Sink
        let wantsPreviews: Bool
        /// Final-response-only subscribers (`image(_:)` callers) want no
        /// progress: sending it to a thousand callers sharing a load would
        /// cost a thousand sends per chunk.
        let wantsProgress: Bool
    }

    struct Entry {
        let generation: UInt64
        /// The result key the entry makes (several task keys may share one).
        let resultKey: String
        var subscribers: [SubscriberID: Subscriber] = [:]
        var work: Work?
        var lastProgress: LoadEvent?
        var lastPreview: Image?
        var previewSubscribers = 0
    }

    enum SubscribeAction {
        /// Work runs already: send the subscriber what it missed.
        case joined(progress: LoadEvent?, preview: Image?)
        /// No work ran: start it, identified by this generation.
        case start(generation: UInt64)
    }

    enum LeaveAction {
        /// The subscriber had already gone (finished, or never joined).
        case none
        /// Removed; others still wait.
        case removed(Sink)
        /// Removed, and it was the last: cancel the work (if it was recorded).
        case removedLast(Sink, cancel: Work?)
    }

    enum RecordAction {
        case recorded
        /// Every subscriber left before the work was recorded: cancel it.
        case cancel
    }

    private(set) var entries: [Key: Entry] = [:]
    /// Running entries per result key, so a caller can tell its result is
    /// being made without building the full task key.
    private(set) var inFlightResults: [String: Int] = [:]
    private var nextGeneration: UInt64 = 0
    /// Pieces of work ever started (joins do not count).
    private(set) var started = 0

    /// Adds a subscriber to the work for `key`, creating the entry if none runs.
    mutating func subscribe(
        _ key: Key, resultKey: String, id: SubscriberID, sink: Sink, wantsPreviews: Bool, wantsProgress: Bool
    ) -> SubscribeAction {
        let subscriber = Subscriber(sink: sink, wantsPreviews: wantsPreviews, wantsProgress: wantsProgress)
        // Mutated in place through the dictionary's accessor: copying the
        // entry out would copy its subscriber table on every join (O(n²)).
        if entries[key] != nil {
            entries[key]!.subscribers[id] = subscriber
            if wantsPreviews { entries[key]!.previewSubscribers += 1 }
            let entry = entries[key]!
            return .joined(progress: wantsProgress ? entry.lastProgress : nil, preview: wantsPreviews ? entry.lastPreview : nil)
        }
        nextGeneration &+= 1
        var entry = Entry(generation: nextGeneration, resultKey: resultKey)
        entry.subscribers[id] = subscriber
        entry.previewSubscribers = wantsPreviews ? 1 : 0
        entries[key] = entry
        inFlightResults[resultKey, default: 0] += 1
        started += 1
        return .start(generation: entry.generation)
    }

    /// Adds a final-response-only subscriber to work already running.
    ///
    /// - Returns: Whether work runs for `key` (if not, nothing was added).
    mutating func join(_ key: Key, id: SubscriberID, sink: Sink) -> Bool {
        guard entries[key] != nil else { return false }
        entries[key]!.subscribers[id] = Subscriber(sink: sink, wantsPreviews: false, wantsProgress: false)
        return true
    }

    /// Records the handle of the work started for `generation`.
    mutating func record(_ work: Work, for key: Key, generation: UInt64) -> RecordAction {
        guard entries[key]?.generation == generation else { return .cancel }
        entries[key]!.work = work
        return .recorded
    }

    /// Removes one subscriber; the last one out ends the entry.
    mutating func leave(_ key: Key, id: SubscriberID) -> LeaveAction {
        guard let removed = entries[key]?.subscribers.removeValue(forKey: id) else { return .none }
        if removed.wantsPreviews { entries[key]!.previewSubscribers -= 1 }
        guard entries[key]!.subscribers.isEmpty else { return .removed(removed.sink) }
        return .removedLast(removed.sink, cancel: removeEntry(key)?.work)
    }

    /// Whether any subscriber of the work of `generation` wants previews.
    func wantsPreviews(_ key: Key, generation: UInt64) -> Bool {
        guard let entry = entries[key], entry.generation == generation else { return false }
        return entry.previewSubscribers > 0
    }

    /// Records `event` for late joiners and returns the sinks to send it to
    /// (none when the work of `generation` is no longer the key's).
    mutating func broadcast(_ key: Key, generation: UInt64, _ event: LoadEvent) -> [Sink] {
        guard entries[key]?.generation == generation else { return [] }
        let isPreview: Bool
        if case .preview(let image) = event {
            isPreview = true
            entries[key]!.lastPreview = image
        } else {
            isPreview = false
            entries[key]!.lastProgress = event
        }
        return entries[key]!.subscribers.values.compactMap { subscriber in
            (isPreview ? subscriber.wantsPreviews : subscriber.wantsProgress) ? subscriber.sink : nil
        }
    }

    /// Ends the work of `generation`: its subscribers, in the order they
    /// came (ids grow), to be sent the result. Empty when the entry is gone
    /// or belongs to newer work.
    mutating func finish(_ key: Key, generation: UInt64) -> [Subscriber] {
        guard entries[key]?.generation == generation, let entry = removeEntry(key) else { return [] }
        return entry.subscribers.sorted { $0.key < $1.key }.map(\.value)
    }

    private mutating func removeEntry(_ key: Key) -> Entry? {
        guard let entry = entries.removeValue(forKey: key) else { return nil }
        if let count = inFlightResults[entry.resultKey], count > 1 {
            inFlightResults[entry.resultKey] = count - 1
        } else {
            inFlightResults[entry.resultKey] = nil
        }
        return entry
    }
}
