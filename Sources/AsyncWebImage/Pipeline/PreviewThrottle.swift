import Foundation
import Synchronization
import AWILocking

/// Decodes previews of one download: at most one decode in flight, at least
/// `interval` between two starts, always from the newest bytes. Bytes that
/// arrive while a decode runs replace each other, so a slow decode skips
/// stale states instead of queueing them.
final class PreviewThrottle: Sendable {
    private struct State {
        var decoder: (any ProgressiveImageDecoding)?
        var pending: Data?
        var running: Task<Void, Never>?
        var lastStart: ContinuousClock.Instant?
        var stopped = false
        var failed = false
    }

    private let state = Lock(State())
    private let interval: Duration
    private let limiter: ConcurrencyLimiter
    private let transformer: (any ImageTransformer)?
    private let deliver: @Sendable (Image) -> Void

    /// - Parameters:
    ///   - decoder: The progressive decoder, state included; it moves into
    ///     the decode task and back, never shared.
    ///   - deliver: Receives each preview; never called after ``stop()`` returns.
    init(
        decoder: any ProgressiveImageDecoding,
        interval: Duration,
        limiter: ConcurrencyLimiter,
        transformer: (any ImageTransformer)?,
        deliver: @escaping @Sendable (Image) -> Void
    ) {
        self.interval = interval
        self.limiter = limiter
        self.transformer = transformer
        self.deliver = deliver
        state.withLock { $0.decoder = decoder }
    }

    /// Offers the bytes received so far; starts a decode if none runs and
    /// the interval has passed, else keeps them for the running one.
    func offer(_ data: Data) {
        let now = ContinuousClock.now
        state.withLock { state in
            guard !state.stopped, !state.failed else { return }
            state.pending = data
            guard state.running == nil else { return }
            if let last = state.lastStart, now - last < interval { return }
            state.lastStart = now
            // Created under the lock so that stop() always sees it.
            state.running = Task { await self.drain() }
        }
    }

    /// Stops decoding and waits for a running decode to end, so no preview
    /// is delivered after this returns (the final image must come last).
    func stop() async {
        let running = state.withLock { state -> Task<Void, Never>? in
            state.stopped = true
            return state.running
        }
        running?.cancel()
        await running?.value
    }

    private func drain() async {
        while true {
            let job = state.withLock { state -> (any ProgressiveImageDecoding, Data)? in
                guard !state.stopped, let data = state.pending, let decoder = state.decoder else {
                    state.running = nil
                    return nil
                }
                state.pending = nil
                state.decoder = nil
                return (decoder, data)
            }
            guard var (decoder, data) = job else { return }
            let preview: Image?
            do {
                preview = try await limiter.withPermit { () throws -> Image? in
                    guard var image = try decoder.preview(for: data) else { return nil }
                    if let transformer { image = try transformer.transform(image) }
                    return image.isPreview ? image : image.with(isPreview: true)
                }
            } catch {
                // Bad bytes or cancellation: no more previews; the final
                // decode reports what is wrong with the data.
                state.withLock { state in
                    state.failed = true
                    state.running = nil
                }
                return
            }
            data = Data()
            // Deliver under the lock's decision so stop() cannot slip between.
            let deliverNow = state.withLock { state -> Bool in
                state.decoder = decoder
                return !state.stopped
            }
            if let preview, deliverNow { deliver(preview) }
            let wait = state.withLock { state -> Duration? in
                guard state.pending != nil, !state.stopped else {
                    state.running = nil
                    return nil
                }
                let elapsed = state.lastStart.map { ContinuousClock.now - $0 } ?? interval
                return elapsed < interval ? interval - elapsed : .zero
            }
            guard let wait else { return }
            if wait > .zero {
                do { try await Task.sleep(for: wait) } catch {
                    state.withLock { $0.running = nil }
                    return
                }
            }
            state.withLock { $0.lastStart = ContinuousClock.now }
        }
    }
}
