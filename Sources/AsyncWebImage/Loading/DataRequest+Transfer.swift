

extension DataRequest {
    /// The events of one transfer started by a ``DataLoading`` loader: an
    /// `AsyncSequence` of ``DataRequest/Transfer/Event`` that ends after the last byte.
    ///
    /// Iterate it once. Cancelling the iterating task, or releasing the sequence
    /// and its iterator before the end, stops the transfer.
    public struct Transfer: AsyncSequence, Sendable {
        public typealias Element = DataRequest.Transfer.Event
        public typealias Failure = any Error

        let stream: AsyncThrowingStream<DataRequest.Transfer.Event, any Error>
        let prioritize: @Sendable (DataRequest.Priority) -> Void
        /// Told how many body bytes the consumer has taken, for back-pressure.
        let consumed: (@Sendable (Int) -> Void)?
        /// Stops the transfer at once (the loader's own cancellation, if it has one).
        let stop: (@Sendable () -> Void)?
        /// The head of a response whose status failed the transfer (for its
        /// `Retry-After`), when the loader kept it.
        let failedHead: (@Sendable () -> HTTPResponseHead?)?
        /// The timings of the ended transfer, total included, when the loader measured them.
        let finalTimings: (@Sendable () -> HTTPResponseHead.Timings?)?

        /// Wraps a stream of events from a custom loader.
        /// - Parameters:
        ///   - stream: The events; finishing it ends the transfer, throwing fails it.
        ///   - setPriority: Called when a waiting transfer's priority changes; ignored by default.
        public init(
            _ stream: AsyncThrowingStream<DataRequest.Transfer.Event, any Error>,
            setPriority: @escaping @Sendable (DataRequest.Priority) -> Void = { _ in }
        ) {
            self.init(stream: stream, prioritize: setPriority, consumed: nil, stop: nil)
        }

        init(
            stream: AsyncThrowingStream<DataRequest.Transfer.Event, any Error>,
            prioritize: @escaping @Sendable (DataRequest.Priority) -> Void,
            consumed: (@Sendable (Int) -> Void)?,
            stop: (@Sendable () -> Void)?,
            failedHead: (@Sendable () -> HTTPResponseHead?)? = nil,
            finalTimings: (@Sendable () -> HTTPResponseHead.Timings?)? = nil
        ) {
            self.finalTimings = finalTimings
            self.stream = stream
            self.prioritize = prioritize
            self.consumed = consumed
            self.stop = stop
            self.failedHead = failedHead
        }

        /// A transfer that fails at once with `error`.
        static func failing(_ error: ImageError) -> DataRequest.Transfer {
            DataRequest.Transfer(AsyncThrowingStream { $0.finish(throwing: error) })
        }

        /// Changes the priority of the transfer while it waits for a slot (no
        /// effect once it runs).
        /// - Parameter priority: The new priority.
        /// - Important: Thread-safe; may be called while another task iterates.
        public func setPriority(_ priority: DataRequest.Priority) {
            prioritize(priority)
        }

        /// curl's timings of the whole transfer, with ``HTTPResponseHead/Timings/total``
        /// set, once the sequence has ended after its last byte; nil before,
        /// after a failure, and from loaders that do not measure them.
        /// - Important: Thread-safe.
        public var completedTimings: HTTPResponseHead.Timings? {
            finalTimings?()
        }

        /// Stops the transfer without waiting for its events to be released
        /// (a custom loader's transfer stops when they are).
        func cancel() {
            stop?()
        }

        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(base: stream.makeAsyncIterator(), consumed: consumed)
        }

        /// Iterates the events; not `Sendable`: one task iterates.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncThrowingStream<DataRequest.Transfer.Event, any Error>.AsyncIterator
            let consumed: (@Sendable (Int) -> Void)?

            /// The next event, or nil after the last byte.
            /// - Throws: ``ImageError`` when the transfer failed; `CancellationError`
            ///   when the iterating task was cancelled.
            public mutating func next() async throws -> DataRequest.Transfer.Event? {
                guard let event = try await base.next() else {
                    // The stream ends quietly when its consumer is cancelled; say so.
                    try Task.checkCancellation()
                    return nil
                }
                if case .chunk(let data) = event, let consumed { consumed(data.count) }
                return event
            }
        }
    }
}

@available(*, unavailable)
extension DataRequest.Transfer.AsyncIterator: Sendable {}
