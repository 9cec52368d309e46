/// Shares one transfer among every subscriber asking for the same request.
///
/// Requests are keyed by ``DataRequest/key``: the URL and everything that can
/// change the response (every header field, credentials included; cookie,
/// TLS and redirect options). Two requests that differ in credentials never
/// share a response, unlike caches keyed on the URL alone.
///
/// - A shared transfer waits for a loader slot at the highest priority among
///   its subscribers; a higher-priority subscriber promotes it.
/// - A subscriber that joins late receives the head and the bytes so far,
///   then the rest; every subscriber gets progress.
/// - A subscriber that leaves (task cancelled, or iteration stopped) never
///   disturbs the others; when the last one leaves, the transfer is
///   cancelled at once and its connection closed.
/// - A finished or failed transfer leaves the table: the next request
///   starts a new one.
///
/// ```swift
/// let coalescer = DownloadCoalescer(loader: CurlDataLoader.shared)
/// for try await event in coalescer.download(DataRequest(url: url)) {
///     if case .completed(let data) = event { ... }
/// }
/// ```
///
/// - Important: The actor only keeps the table; events flow from the
///   transfer to subscribers without hopping onto it, and decryption runs
///   on the subscriber's task.
package actor DownloadCoalescer {
    /// The loader transfers run on.
    public nonisolated let loader: any DataLoading
    /// The coalescer's configuration.
    public nonisolated let configuration: Configuration
    /// Told of every retry of a transfer (the failure and the attempt that
    /// follows it): the loader's log line and counter. Not public: a
    /// coalescer made by hand has none.
    nonisolated let retryObserver: DownloadTransfer.RetryObserver?
    private var transfers: [DataRequest.Key: DownloadTransfer] = [:]
    private var started = 0

    /// Creates a coalescer over `loader`.
    /// - Parameters:
    ///   - loader: Where transfers run; ``CurlDataLoader/shared`` by default.
    ///   - configuration: Limits and default modifiers.
    public init(loader: any DataLoading = CurlDataLoader.shared, configuration: Configuration = Configuration()) {
        self.loader = loader
        self.configuration = configuration
        retryObserver = nil
    }

    /// Creates a coalescer whose transfers tell `retryObserver` of each retry.
    init(loader: any DataLoading, configuration: Configuration = Configuration(), retryObserver: DownloadTransfer.RetryObserver?) {
        self.loader = loader
        self.configuration = configuration
        self.retryObserver = retryObserver
    }

    /// The events of `request`, shared with every other subscriber of the
    /// same ``DataRequest/key``.
    ///
    /// Nothing happens until the sequence is iterated: then the request
    /// modifier runs, and the subscriber joins the running transfer or
    /// starts one.
    ///
    /// - Parameters:
    ///   - request: What to load; its priority is the subscriber's.
    ///   - modifiers: Modifiers for this subscriber; nil fields fall back to
    ///     ``Configuration/modifiers``.
    /// - Returns: The subscriber's events; they throw ``ImageError`` on failure
    ///   (``ImageError/requestRejected(_:)``, ``ImageError/responseRejected(_:)``,
    ///   the transfer's error) and `CancellationError` when the task is cancelled.
    public nonisolated func download(_ request: DataRequest, modifiers: DownloadModifiers = DownloadModifiers()) -> DownloadEvents {
        DownloadEvents(coalescer: self, request: request, modifiers: modifiers.over(configuration.modifiers))
    }

    /// Transfers in the table now (running, or ending).
    public var transferCount: Int { transfers.count }

    /// Transfers started since the coalescer was created.
    public var transfersStarted: Int { started }

    /// Subscribers of the transfer for `request`'s key now (0 when there is none).
    public func subscriberCount(for request: DataRequest) -> Int {
        transfers[request.key]?.subscriberCount ?? 0
    }

    /// Joins the transfer for `request`, starting one if none is running.
    func subscribe(_ request: DataRequest) -> DownloadSubscription {
        let key = request.key
        if let transfer = transfers[key], let id = transfer.join(priority: request.priority) {
            return DownloadSubscription(transfer: transfer, id: id)
        }
        let transfer = DownloadTransfer(
            request: request, loader: loader, maxBytes: loader.maxResponseBytes,
            retryPolicy: request.retryPolicy ?? configuration.retryPolicy, retryObserver: retryObserver
        )
        // A fresh transfer always accepts its first subscriber.
        let id = transfer.join(priority: request.priority) ?? 0
        transfers[key] = transfer
        started += 1
        transfer.start(coalescer: self)
        return DownloadSubscription(transfer: transfer, id: id)
    }

    /// Removes an ended transfer (unless a newer one has taken its key).
    func transferEnded(_ transfer: DownloadTransfer) {
        if transfers[transfer.key] === transfer { transfers[transfer.key] = nil }
    }
}
