public import Foundation

extension ImageLoader {
    /// One prefetch: loads its URLs into the caches, a few at a time, and yields
    /// a ``ImageLoader/ImagePrefetchSequence/Progress`` after each URL (the last one is complete).
    ///
    /// Cold: nothing is loaded until it is iterated. Cancelling the iterating
    /// task, or breaking out of the loop, cancels this prefetch's loads only;
    /// loads that other callers share go on for them. Separate prefetches are
    /// independent, each with its own concurrency limit and progress.
    public struct ImagePrefetchSequence: AsyncSequence, Sendable {
        public typealias Element = ImageLoader.ImagePrefetchSequence.Progress
        public typealias Failure = Never

        let loader: ImageLoader
        let requests: [ImageRequest]
        /// Whether the loads decode (warming memory too) or only fetch the data
        /// into the disk and shared tiers.
        let decodes: Bool
        let maxConcurrentLoads: Int

        /// Delivers progress; not shareable across tasks.
        public struct AsyncIterator: AsyncIteratorProtocol {
            private let sequence: ImageLoader.ImagePrefetchSequence
            private var stream: AsyncStream<ImageLoader.ImagePrefetchSequence.Progress>.AsyncIterator?
            private var lifetime: Lifetime?

            /// Cancels the prefetch's task when the iterator is dropped.
            final class Lifetime: Sendable {
                let task: Task<Void, Never>
                init(task: Task<Void, Never>) { self.task = task }
                deinit { task.cancel() }
            }

            init(sequence: ImageLoader.ImagePrefetchSequence) {
                self.sequence = sequence
            }

            /// The progress after the next URL, `nil` once all are done or the prefetch was cancelled.
            public mutating func next() async -> ImageLoader.ImagePrefetchSequence.Progress? {
                if stream == nil {
                    guard !Task.isCancelled else { return nil }
                    let (stream, continuation) = AsyncStream<ImageLoader.ImagePrefetchSequence.Progress>.makeStream(bufferingPolicy: .bufferingNewest(1))
                    let sequence = sequence
                    let task = Task { await sequence.run(continuation) }
                    continuation.onTermination = { _ in task.cancel() }
                    self.stream = stream.makeAsyncIterator()
                    lifetime = Lifetime(task: task)
                }
                return await withTaskCancellationHandler {
                    await stream?.next()
                } onCancel: { [lifetime] in
                    lifetime?.task.cancel()
                }
            }
        }

        /// Creates the iterator; loading starts on its first `next()`.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(sequence: self)
        }

        /// Runs the prefetch to the end (or until cancelled) and returns the final progress.
        public func run() async -> ImageLoader.ImagePrefetchSequence.Progress {
            var last = ImageLoader.ImagePrefetchSequence.Progress(total: requests.count)
            for await progress in self { last = progress }
            return last
        }

        private func run(_ continuation: AsyncStream<ImageLoader.ImagePrefetchSequence.Progress>.Continuation) async {
            var progress = ImageLoader.ImagePrefetchSequence.Progress(total: requests.count)
            if requests.isEmpty { continuation.yield(progress) }
            await withTaskGroup(of: Bool.self) { group in
                var pending = requests.makeIterator()
                var running = 0
                func startNext() -> Bool {
                    guard !Task.isCancelled, let request = pending.next() else { return false }
                    group.addTask { [loader, decodes] in
                        do {
                            if decodes {
                                _ = try await loader.response(for: request)
                            } else {
                                _ = try await loader.data(for: request)
                            }
                            return true
                        } catch {
                            return false
                        }
                    }
                    return true
                }
                while running < Swift.max(1, maxConcurrentLoads), startNext() { running += 1 }
                for await succeeded in group {
                    if Task.isCancelled { break }
                    if succeeded { progress.finished += 1 } else { progress.skipped += 1 }
                    continuation.yield(progress)
                    _ = startNext()
                }
            }
            continuation.finish()
        }
    }
}

@available(*, unavailable)
extension ImageLoader.ImagePrefetchSequence.AsyncIterator: Sendable {}

extension ImageLoader {
    /// Prefetches `requests` into the caches, `maxConcurrentLoads` at a time.
    ///
    /// ```swift
    /// let requests = urls.map { ImageRequest(url: $0, priority: .low) }
    /// for await progress in loader.prefetch(requests) { print(progress) }
    /// ```
    ///
    /// - Parameters:
    ///   - requests: The requests, loaded in order.
    ///   - decodes: Decode each image into the memory cache (`true`, the
    ///     default), or only fetch its bytes into the disk and shared tiers
    ///     (`false`: nothing is decoded; what a server warming a fleet wants).
    ///   - maxConcurrentLoads: How many loads of this prefetch run at once; 3 by default.
    public func prefetch(_ requests: [ImageRequest], decodes: Bool = true, maxConcurrentLoads: Int = 3) -> ImageLoader.ImagePrefetchSequence {
        ImageLoader.ImagePrefetchSequence(loader: self, requests: requests, decodes: decodes, maxConcurrentLoads: maxConcurrentLoads)
    }

    /// Prefetches `urls` into the caches: `prefetch(_:decodes:maxConcurrentLoads:)`
    /// of one request per URL.
    ///
    /// - Parameters:
    ///   - urls: The URLs, loaded in order.
    ///   - options: Options for every load.
    ///   - context: Context for every load.
    ///   - priority: The priority of every load: ``DataRequest/Priority/low`` by default.
    ///   - decodes: Decode into memory (`true`, the default) or fetch the data only.
    ///   - maxConcurrentLoads: How many loads of this prefetch run at once; 3 by default.
    public func prefetch(
        _ urls: [URL],
        options: ImageOptions = [],
        context: ImageContext = ImageContext(),
        priority: ImageRequest.Priority = .low,
        decodes: Bool = true,
        maxConcurrentLoads: Int = 3
    ) -> ImageLoader.ImagePrefetchSequence {
        prefetch(
            urls.map { ImageRequest(url: $0, options: options, context: context, priority: priority) },
            decodes: decodes, maxConcurrentLoads: maxConcurrentLoads
        )
    }
}
