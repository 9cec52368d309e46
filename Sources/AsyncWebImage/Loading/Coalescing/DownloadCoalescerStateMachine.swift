import Foundation

/// The state of one coalesced transfer, with no I/O: its subscribers, what
/// each has received, the head and bytes so far, and the phase. Every
/// mutation returns what the caller must do (resume waiters, change the
/// loader's priority, cancel the transfer).
///
/// `Waiter` is what a suspended subscriber waits on (a continuation in
/// ``DownloadTransfer``; any value in tests).
struct DownloadCoalescerStateMachine<Waiter> {
    typealias SubscriberID = UInt64

    enum Phase {
        case loading
        case completed
        case failed(any Error)
        /// The last subscriber left before the end.
        case cancelled
    }

    struct Subscriber {
        var priority: DataRequest.Priority
        var headDelivered = false
        /// Bytes delivered to this subscriber.
        var delivered = 0
        var progressPending = false
        var completionDelivered = false
    }

    enum JoinAction {
        case joined(SubscriberID, reprioritize: DataRequest.Priority?)
        /// The transfer ended or is ending: start a new one.
        case closed
    }

    enum LeaveAction {
        case none
        case reprioritize(DataRequest.Priority)
        /// The last subscriber left a running transfer: cancel it.
        case cancelTransfer
    }

    enum NextAction {
        case event(DownloadEvent)
        case wait
        case end
        case fail(any Error)
    }

    enum SuspendAction {
        case suspended
        /// Something to deliver arrived meanwhile: do not wait.
        case ready
        case cancelled
    }

    private(set) var phase: Phase = .loading
    private(set) var head: HTTPResponseHead?
    private(set) var priority: DataRequest.Priority
    private var body: ByteAccumulator
    /// The newest chunk as received, handed out as is to subscribers that had everything before it.
    private var lastChunk = Data()
    private var lastChunkStart = 0
    private var subscribers: [SubscriberID: Subscriber] = [:]
    /// The subscribers suspended until there is news for them.
    private var waiters: [SubscriberID: Waiter] = [:]
    private var nextID: SubscriberID = 0
    /// Subscribers per priority (indexed by raw value), for the highest in O(1).
    private var priorityCounts = [Int](repeating: 0, count: DataRequest.Priority.allCases.count)

    /// Creates the state of a transfer started at `priority` that may hold `maxBytes`.
    init(priority: DataRequest.Priority, maxBytes: Int64) {
        self.priority = priority
        body = ByteAccumulator(limit: Int(clamping: maxBytes))
    }

    var subscriberCount: Int { subscribers.count }
    var receivedCount: Int { body.count }

    var isLoading: Bool {
        if case .loading = phase { true } else { false }
    }

    // MARK: Subscribers

    mutating func join(priority: DataRequest.Priority) -> JoinAction {
        guard isLoading else { return .closed }
        let id = nextID
        nextID += 1
        subscribers[id] = Subscriber(priority: priority)
        priorityCounts[priority.rawValue] += 1
        guard priority > self.priority else { return .joined(id, reprioritize: nil) }
        self.priority = priority
        return .joined(id, reprioritize: priority)
    }

    /// Raises subscriber `id` to `priority` (its task's priority was
    /// escalated); returns the transfer's new priority when that rose too.
    mutating func raise(_ id: SubscriberID, to priority: DataRequest.Priority) -> DataRequest.Priority? {
        guard var subscriber = subscribers[id], subscriber.priority < priority else { return nil }
        priorityCounts[subscriber.priority.rawValue] -= 1
        priorityCounts[priority.rawValue] += 1
        subscriber.priority = priority
        subscribers[id] = subscriber
        guard isLoading, priority > self.priority else { return nil }
        self.priority = priority
        return priority
    }

    /// Removes a subscriber; also returns its waiter, if it was suspended,
    /// for the caller to resume with `CancellationError`.
    mutating func leave(_ id: SubscriberID) -> (LeaveAction, Waiter?) {
        guard let subscriber = subscribers.removeValue(forKey: id) else { return (.none, nil) }
        priorityCounts[subscriber.priority.rawValue] -= 1
        let waiter = waiters.removeValue(forKey: id)
        guard isLoading else { return (.none, waiter) }
        guard let highest = DataRequest.Priority.allCases.last(where: { priorityCounts[$0.rawValue] > 0 }) else {
            phase = .cancelled
            return (.cancelTransfer, waiter)
        }
        guard highest < priority else { return (.none, waiter) }
        priority = highest
        return (.reprioritize(highest), waiter)
    }

    /// What subscriber `id` gets next.
    mutating func next(_ id: SubscriberID) -> NextAction {
        guard var subscriber = subscribers[id] else { return .fail(CancellationError()) }
        switch phase {
        case .failed(let error): return .fail(error)
        case .cancelled: return .fail(CancellationError())
        case .loading, .completed: break
        }
        defer { subscribers[id] = subscriber }
        if !subscriber.headDelivered, let head {
            subscriber.headDelivered = true
            return .event(.head(head))
        }
        guard subscriber.headDelivered else {
            if case .completed = phase { return .end } // cannot happen: completion needs a head
            return .wait
        }
        if subscriber.delivered < body.count {
            let chunk = subscriber.delivered == lastChunkStart && subscriber.delivered > 0
                ? lastChunk : body.suffix(from: subscriber.delivered)
            subscriber.delivered = body.count
            subscriber.progressPending = true
            return .event(.chunk(chunk, accumulated: body.prefix(body.count)))
        }
        if subscriber.progressPending {
            subscriber.progressPending = false
            return .event(.progress(received: Int64(body.count), expected: head?.expectedContentLength))
        }
        guard case .completed = phase else { return .wait }
        guard subscriber.completionDelivered else {
            subscriber.completionDelivered = true
            return .event(.completed(body.prefix(body.count)))
        }
        return .end
    }

    /// Parks subscriber `id`'s waiter unless there is news for it or its task is cancelled.
    mutating func suspend(_ id: SubscriberID, _ waiter: Waiter, isCancelled: Bool) -> SuspendAction {
        guard !isCancelled, let subscriber = subscribers[id] else { return .cancelled }
        guard !hasNews(for: subscriber) else { return .ready }
        waiters[id] = waiter
        return .suspended
    }

    /// Whether ``next(_:)`` would return something other than `.wait`.
    private func hasNews(for subscriber: Subscriber) -> Bool {
        guard isLoading else { return true }
        guard subscriber.headDelivered else { return head != nil }
        return subscriber.delivered < body.count || subscriber.progressPending
    }

    // MARK: Transfer

    /// The head arrived; returns the waiters to resume.
    mutating func receiveHead(_ head: HTTPResponseHead) -> [Waiter] {
        guard isLoading else { return [] }
        self.head = head
        // Reserve what the server announced, but not a hostile 60 MB for a
        // body that may never come: past 16 MiB the buffer grows as bytes arrive.
        if let expected = head.expectedContentLength, expected > 0 {
            body.reserve(Int(clamping: min(expected, 16 * 1024 * 1024)))
        }
        return takeWaiters()
    }

    /// Body bytes arrived; returns the waiters to resume, or fails the
    /// transfer when they pass the byte limit.
    mutating func receive(_ chunk: Data) -> Result<[Waiter], ImageError> {
        guard isLoading else { return .success([]) }
        let start = body.count
        guard body.append(chunk) else {
            let error = ImageError.tooLarge(.bytes, limit: Int64(body.limit), actual: nil)
            return .failure(error)
        }
        lastChunk = chunk
        lastChunkStart = start
        return .success(takeWaiters())
    }

    /// The body starts again with `head` (a resumed transfer's answer was
    /// another representation, or could not be spliced): the bytes so far
    /// are dropped, and every subscriber gets the new head and the new body
    /// from its first byte. Returns the waiters to resume.
    mutating func restart(_ head: HTTPResponseHead) -> [Waiter] {
        guard isLoading else { return [] }
        body = ByteAccumulator(limit: body.limit)
        lastChunk = Data()
        lastChunkStart = 0
        for id in subscribers.keys {
            subscribers[id]?.headDelivered = false
            subscribers[id]?.delivered = 0
            subscribers[id]?.progressPending = false
        }
        return receiveHead(head)
    }

    /// The transfer ended well; returns the waiters to resume.
    mutating func complete() -> [Waiter] {
        guard isLoading else { return [] }
        if head == nil { return fail(ImageError.network(.init(kind: .protocolError, code: 0, message: "transfer ended without a response head"))) }
        phase = .completed
        return takeWaiters()
    }

    /// The transfer failed; returns the waiters to resume (they then read the error).
    mutating func fail(_ error: any Error) -> [Waiter] {
        guard isLoading else { return [] }
        phase = .failed(error)
        return takeWaiters()
    }

    private mutating func takeWaiters() -> [Waiter] {
        guard !waiters.isEmpty else { return [] }
        defer { waiters.removeAll(keepingCapacity: true) }
        return Array(waiters.values)
    }
}
