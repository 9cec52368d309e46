extension ImageLoader {
    /// The images of one load: previews (with `.progressiveLoad`), then the final
    /// image; it ends after the final one.
    ///
    /// Cold like ``ImageLoader/ImageEventSequence``: each iteration starts its own load when
    /// it first asks for an element, and cancelling the consuming task (or
    /// breaking out of the loop) cancels it.
    public struct ImageSequence: AsyncSequence, Sendable {
        public typealias Element = Image
        public typealias Failure = any Error

        let events: ImageLoader.ImageEventSequence

        /// Delivers images; its own iteration is not shareable across tasks.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var events: ImageLoader.ImageEventSequence.AsyncIterator

            /// The next preview or the final image, `nil` at the end.
            ///
            /// - Throws: the load's ``ImageError``, or `CancellationError`.
            public mutating func next() async throws -> Image? {
                while let event = try await events.next() {
                    switch event {
                    case .progress: continue
                    case .preview(let image): return image
                    case .finished(let response): return response.image
                    }
                }
                return nil
            }
        }

        /// Creates the iterator; the load starts on its first `next()`.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(events: events.makeAsyncIterator())
        }
    }
}

@available(*, unavailable)
extension ImageLoader.ImageSequence.AsyncIterator: Sendable {}
