/// The events of one load: progress, previews, then the final response.
///
/// The sequence is cold: each iteration starts its own load when it first
/// asks for an element (identical loads share work through the loader's
/// coalescers). The load is cancelled when the consuming task is cancelled
/// or stops iterating. Iterate it from one task at a time.
public struct ImageEventSequence: AsyncSequence, Sendable {
    public typealias Element = ImageEvent
    public typealias Failure = any Error

    /// Starts the load feeding a channel (in the consumer's task).
    let start: @Sendable (ImageEventChannel) async -> Void

    /// Delivers events; its own iteration is not shareable across tasks.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private let start: @Sendable (ImageEventChannel) async -> Void
        private var started = false
        private let lifetime: Lifetime

        /// Terminates the load when the iterator is dropped, so a consumer
        /// that breaks out of its loop cancels work nobody else waits for.
        final class Lifetime {
            let channel = ImageEventChannel()
            deinit { channel.terminate() }
        }

        init(start: @escaping @Sendable (ImageEventChannel) async -> Void) {
            self.start = start
            lifetime = Lifetime()
        }

        /// The next event, or `nil` after the final response.
        ///
        /// - Throws: the load's ``ImageError``, or `CancellationError`.
        public mutating func next() async throws -> ImageEvent? {
            if !started {
                started = true
                try Task.checkCancellation()
                await start(lifetime.channel)
            }
            return try await lifetime.channel.next()
        }
    }

    /// Creates the iterator; the load starts on its first `next()`.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(start: start)
    }
}

@available(*, unavailable)
extension ImageEventSequence.AsyncIterator: Sendable {}
