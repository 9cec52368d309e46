extension ImageLoader {
    /// The events of one load: progress, previews, then the final response.
    ///
    /// The sequence is cold: each iteration starts its own load when it first
    /// asks for an element (identical loads share work through the loader's
    /// coalescers). The load is cancelled when the consuming task is cancelled
    /// or stops iterating. Iterate it from one task at a time.
    public struct ImageEventSequence: AsyncSequence, Sendable {
        public typealias Element = ImageEvent
        public typealias Failure = any Error

        /// Starts the load feeding a channel (in the consumer's task); returns
        /// the load's span when a tracer is configured.
        let start: @Sendable (ImageEventChannel) async -> LoadSpan?

        /// Delivers events; its own iteration is not shareable across tasks.
        public struct AsyncIterator: AsyncIteratorProtocol {
            private let start: @Sendable (ImageEventChannel) async -> LoadSpan?
            private var started = false
            private let lifetime: Lifetime

            /// Terminates the load when the iterator is dropped, so a consumer
            /// that breaks out of its loop cancels work nobody else waits for;
            /// and ends the load's span if the stream has not ended it.
            final class Lifetime {
                let channel = ImageEventChannel()
                var span: LoadSpan?
                /// Whether a final response was delivered: leaving the loop
                /// after it is the end of the load, not a cancellation.
                var deliveredFinal = false

                deinit {
                    channel.terminate()
                    span?.end(error: deliveredFinal ? nil : CancellationError())
                }
            }

            init(start: @escaping @Sendable (ImageEventChannel) async -> LoadSpan?) {
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
                    lifetime.span = await start(lifetime.channel)
                }
                do {
                    switch try await lifetime.channel.next() {
                    case .finished(let result)?:
                        lifetime.deliveredFinal = true
                        return .finished(try result.imageResponse())
                    case .progress(let received, let expected)?:
                        return .progress(received: received, expected: expected)
                    case .preview(let image)?:
                        return .preview(image)
                    case nil:
                        lifetime.span?.end()
                        return nil
                    }
                } catch {
                    lifetime.span?.end(error: error)
                    throw error
                }
            }
        }

        /// Creates the iterator; the load starts on its first `next()`.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(start: start)
        }
    }
}

@available(*, unavailable)
extension ImageLoader.ImageEventSequence.AsyncIterator: Sendable {}
