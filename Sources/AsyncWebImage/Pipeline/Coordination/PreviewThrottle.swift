import Foundation
import Synchronization
import AWILocking

/// Decodes previews of one download: at most one decode in flight, at least
/// `interval` between two starts, always from the newest bytes. Bytes that
/// arrive while a decode runs replace each other, so a slow decode skips
/// stale states instead of queueing them.
///
/// When the last byte arrives the final image must not wait for a preview:
/// ``stop()`` returns at once, cancelling the decode in flight and dropping
/// its result, so the final decode starts immediately.
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
    ///     It runs under the throttle's lock (that is how `stop()` can return
    ///     without waiting for a decode and still guarantee it), so it must not
    ///     call back into the throttle; it is the coalescer's broadcast, not user code.
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

    /// Stops decoding without waiting: a decode in flight is cancelled and
    /// its result dropped, and no preview is delivered after this returns
    /// (deliveries happen under the lock this takes), so the final image
    /// comes last and its decode need not wait for the preview's.
    func stop() {
        let running = state.withLock { state -> Task<Void, Never>? in
            state.stopped = true
            state.pending = nil
            return state.running
        }
        running?.cancel()
    }

    /// Whether ``stop()`` was called.
    var isStopped: Bool { state.withLock { $0.stopped } }

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
            // Delivered under the lock, so that once stop() has taken it no
            // preview can follow: stop() need not wait for this task.
            // `deliver` only feeds channels and takes no lock of ours.
            state.withLock { state in
                state.decoder = decoder
                if let preview, !state.stopped { deliver(preview) }
            }
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
