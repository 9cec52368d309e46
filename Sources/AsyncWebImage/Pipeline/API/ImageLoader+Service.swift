public import ServiceLifecycle
import Logging

extension ImageLoader {
    /// Runs an ``ImageLoader`` as a service of a `ServiceGroup`
    /// (swift-service-lifecycle): the periodic disk cleanup and the loader's
    /// gauges while it runs, and ``ImageLoader/shutdown()`` on graceful shutdown
    /// (SIGTERM, say), so transfers are cancelled, disk writes in flight finish
    /// and the loader's threads end before the process exits.
    ///
    /// ```swift
    /// let loader = ImageLoader(configuration: configuration)
    /// let group = ServiceGroup(
    ///     services: [ImageLoader.Service(loader: loader), server],
    ///     gracefulShutdownSignals: [.sigterm],
    ///     logger: logger
    /// )
    /// try await group.run()
    /// ```
    public struct Service: ServiceLifecycle.Service {
        /// The loader this service runs and shuts down.
        public let loader: ImageLoader
        /// How long between two disk cleanups (``DiskStore/cleanup()``: expired
        /// entries, then the size limit). One hour by default.
        public var cleanupInterval: Duration
        /// How long between two samples of the loader's gauges (transfers,
        /// memory cache cost and count). 10 seconds by default.
        public var gaugeInterval: Duration

        /// Creates the service of `loader`.
        public init(loader: ImageLoader, cleanupInterval: Duration = .seconds(3600), gaugeInterval: Duration = .seconds(10)) {
            self.loader = loader
            self.cleanupInterval = cleanupInterval
            self.gaugeInterval = gaugeInterval
        }

        /// Cleans the disk and samples the gauges until graceful shutdown (or
        /// cancellation), then shuts the loader down and returns.
        public func run() async throws {
            let loader = loader
            let cleanupInterval = cleanupInterval
            let gaugeInterval = gaugeInterval
            do {
                try await cancelWhenGracefulShutdown {
                    let clock = ContinuousClock()
                    var nextCleanup = clock.now.advanced(by: cleanupInterval)
                    while true {
                        await loader.recordGauges()
                        try await Task.sleep(until: min(nextCleanup, clock.now.advanced(by: gaugeInterval)), clock: clock)
                        if clock.now >= nextCleanup {
                            await loader.cleanDisk()
                            nextCleanup = clock.now.advanced(by: cleanupInterval)
                        }
                    }
                }
            } catch is CancellationError {
                // Graceful shutdown (or the group's cancellation): shut down below.
            }
            await loader.shutdown()
        }
    }
}

extension ImageLoader {
    /// One cleanup of the configured cache's disk tier (when a ``DiskStore``),
    /// logged; its failure is a warning, never an error of the service.
    func cleanDisk() async {
        guard let store = configuration.cache.disk as? DiskStore else { return }
        do {
            let result = try await store.cleanup()
            telemetry.recordDiskSize(result.remainingSize)
            telemetry.logger.debug("disk cleanup", metadata: [
                "awi.removed": .stringConvertible(result.removedCount), "awi.remainingBytes": .stringConvertible(result.remainingSize),
            ])
        } catch {
            telemetry.logger.warning("disk cleanup failed", metadata: ["awi.error": .string(String(describing: error))])
        }
    }

    /// Samples the gauges: transfers of the loader's ``CurlDataLoader``
    /// (active: with a curl handle; queued: waiting for one), and the cost
    /// and count of the memory cache.
    public func recordGauges() async {
        if let curl = configuration.dataLoader as? CurlDataLoader {
            let active = curl.liveEasyHandles
            telemetry.recordTransfers(active: active, queued: max(0, curl.outstandingTransfers - active))
        }
        let statistics = await configuration.cache.memory.statistics
        telemetry.recordMemory(cost: statistics.totalCost, count: statistics.count)
    }
}
