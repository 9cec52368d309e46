import Foundation
import Logging
import Tracing

/// The network stage: the request's bytes from the origin through the
/// download coalescer, with progress and previews broadcast to the load's
/// subscribers, the body charged to the loader's byte budget, the trace
/// context injected, and — when the cache's shared tier elects fetchers —
/// the fleet lease that lets one server of many download.
struct FetchStage: Sendable {
    let coders: ImageCoderRegistry
    let limiter: ConcurrencyLimiter
    let telemetry: LoaderTelemetry
    let bodyBudget: BodyByteBudget?
    let previewInterval: Duration

    /// A fetch lease this server holds, with the tier that granted it: the
    /// one place the lease is shared into and released to.
    struct HeldLease {
        let lease: CacheLease
        let tier: any CacheLeasing

        func release() async { await tier.releaseLease(lease) }
    }

    /// What a load found when it asked the fleet who fetches its data.
    enum FleetLease {
        /// This server fetches; it releases the lease once the data is shared.
        case leader(HeldLease)
        /// Another server fetched it: the entry is in the shared tier now.
        case storedByOther
        /// Another server revalidated the stored entry and let the lease go:
        /// the shared tier holds what its revalidation found.
        case revalidatedByOther
        /// No fleet to ask (no leasing tier, or it did not answer): fetch.
        case alone
    }

    /// Asks the shared tier (when it elects fetchers: ``ImageCache/leasing``) who
    /// downloads this load's data: this server, or another one whose result
    /// it then waits for. Only loads whose original data is stored as
    /// downloaded take part (a cache serializer stores other bytes).
    ///
    /// - Parameter revalidating: The fetch revalidates a stored entry: the
    ///   entry is in the tier already, so a waiter waits for the holder to
    ///   let the lease go (its revalidation stored), not for an entry.
    func fleetLease(for request: ImageLoadRequest, revalidating: Bool = false) async throws -> FleetLease {
        guard let leasing = request.cache.leasing,
              request.queryCacheType.includesDisk, request.originalStoreCacheType.includesDisk,
              request.context.cacheSerializer == nil else { return .alone }
        let key = request.keys.dataKey
        // Bounded: a lease can be taken over at most twice before this server fetches alone.
        for _ in 0..<2 {
            switch await leasing.acquireLease(forKey: key) {
            case .acquired(let lease):
                return .leader(HeldLease(lease: lease, tier: leasing))
            case .unavailable:
                return .alone
            case .heldByOther where revalidating:
                switch try await leasing.waitForRelease(forKey: key) {
                case .leaseGone: return .revalidatedByOther
                case .entry, .timedOut, .unavailable: return .alone
                }
            case .heldByOther:
                switch try await leasing.waitForEntry(forKey: key) {
                case .entry: return .storedByOther
                case .leaseGone: continue
                case .timedOut, .unavailable: return .alone
                }
            }
        }
        return .alone
    }

    /// Downloads `dataRequest` for `request` through `coalescer`, in an
    /// `image.download` span, timed, counted and logged.
    func download(
        _ request: ImageLoadRequest, _ dataRequest: DataRequest, through coalescer: DownloadCoalescer,
        handle: ImageTaskCoalescer.Handle, reservation: BodyByteBudget.Reservation?, logger: Logger
    ) async throws -> (HTTPResponseHead?, Data) {
        let (head, data) = try await telemetry.withChildSpan("image.download") {
            try await telemetry.timed(telemetry.downloadTimer) {
                try await transfer(
                    request, injectingTraceContext(into: dataRequest), through: coalescer, handle: handle, reservation: reservation
                )
            }
        }
        telemetry.countDownloaded(bytes: data.count)
        logger.debug("downloaded", metadata: [
            "awi.id": request.logID, "awi.bytes": .stringConvertible(data.count),
            "awi.status": .stringConvertible(head?.statusCode ?? 0),
        ])
        return (head, data)
    }

    /// `request` carrying the current trace context (`traceparent`, ...),
    /// injected through the tracer. The identity was computed before and
    /// leaves these fields out (``DataRequest/Variant``), so they split no
    /// cache key and no shared download. Without a tracer, `request` as it is.
    private func injectingTraceContext(into request: DataRequest) -> DataRequest {
        guard let tracer = telemetry.tracer, let context = ServiceContext.current else { return request }
        var request = request
        tracer.inject(context, into: &request, using: DataRequestInjector())
        return request
    }

    /// The transfer itself, broadcasting progress and (when a subscriber
    /// wants them) previews; `reservation`'s charge follows the body's
    /// declared or received size.
    private func transfer(
        _ request: ImageLoadRequest, _ dataRequest: DataRequest, through coalescer: DownloadCoalescer,
        handle: ImageTaskCoalescer.Handle, reservation: BodyByteBudget.Reservation?
    ) async throws -> (HTTPResponseHead?, Data) {
        let modifiers = DownloadModifiers(responseModifier: request.context.responseModifier, decryptor: request.context.decryptor)
        var head: HTTPResponseHead?
        var body: Data?
        var throttle: PreviewThrottle?
        var previewsUnavailable = !request.wantsPixels
        do {
            var dataRequest = dataRequest
            dataRequest.retryPolicy = request.context.retryPolicy
            for try await event in coalescer.download(dataRequest, modifiers: modifiers) {
                switch event {
                case .head(let received):
                    if head != nil {
                        // The body restarts (a resumed transfer got another
                        // representation): previews start again with it.
                        throttle?.stop()
                        throttle = nil
                        previewsUnavailable = !request.wantsPixels
                    }
                    head = received
                case .progress(let received, let expected):
                    handle.progress(received: received, expected: expected)
                    if let reservation { bodyBudget?.charge(reservation, bytes: Int(max(received, expected ?? 0))) }
                case .chunk(_, let accumulated):
                    guard !previewsUnavailable, handle.wantsPreviews else { break }
                    if throttle == nil {
                        // Enough bytes to recognise the format by its magic numbers.
                        guard accumulated.count >= 64 else { break }
                        guard let decoder = (coders.decoder(for: accumulated) as? any ProgressiveDecoderProviding)?
                            .makeProgressiveDecoder(options: request.decodingOptions) else {
                            previewsUnavailable = true
                            break
                        }
                        throttle = PreviewThrottle(
                            decoder: decoder, interval: previewInterval, limiter: limiter,
                            transformer: request.transformer, deliver: { handle.preview($0) }
                        )
                    }
                    throttle?.offer(accumulated)
                case .completed(let data):
                    body = data
                    if let reservation { bodyBudget?.charge(reservation, bytes: data.count) }
                }
            }
        } catch {
            throttle?.stop()
            throw error
        }
        throttle?.stop()
        // The download sequence ends without completing only when cancelled.
        guard let body else { throw CancellationError() }
        return (head, body)
    }
}
