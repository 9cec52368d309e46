import CCurl
import Foundation
import Synchronization
import AWILocking

/// The default ``DataLoading``: libcurl's multi interface driven by one
/// dedicated thread.
///
/// All transfers of one loader share a multi handle, so connections are
/// reused (and multiplexed over HTTP/2 where the server offers it), and the
/// DNS cache is shared. At most ``Configuration/maxConcurrentDownloads``
/// transfers run; the rest wait in priority order, then FIFO or LIFO.
///
/// ```swift
/// let loader = CurlDataLoader()
/// for try await event in loader.loadData(for: DataRequest(url: url)) { ... }
/// ```
///
/// - Important: Thread-safe. No curl call and no blocking happen on the
///   caller's thread: requests and cancellations are posted to the loader's
///   thread and wake it with `curl_multi_wakeup`.
public final class CurlDataLoader: DataLoading, Sendable {
    /// The loader's configuration.
    public let configuration: Configuration
    let loop: CurlMultiLoop

    /// A loader shared by everything that does not need its own. It lives as
    /// long as the process; only ``ImageLoader/shared``'s ``ImageLoader/shutdown()`` shuts it down.
    public static let shared: CurlDataLoader = {
        let loader = CurlDataLoader()
        sharedLoop.withLock { $0 = ObjectIdentifier(loader.loop) }
        return loader
    }()

    /// The loop of ``shared`` once it exists (see ``isShared``).
    private static let sharedLoop = Lock<ObjectIdentifier?>(nil)

    /// Whether this is ``shared``, asked without creating it.
    var isShared: Bool { Self.sharedLoop.withLock { $0 } == ObjectIdentifier(loop) }

    /// Creates a loader and starts its thread.
    /// - Parameter configuration: How to load; the defaults by default.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        loop = CurlMultiLoop(configuration: configuration)
    }

    deinit {
        // Every running transfer's stream keeps its loader alive, so nothing
        // is in flight here; this ends the thread and frees the multi handle.
        loop.shutdown()
    }

    /// Cancels every transfer, ends the loader's thread and frees curl's
    /// handles; returns once the thread has ended. Transfers in flight fail
    /// with `CancellationError`; later ones fail at once with
    /// ``ImageError/shutDown``. Calling it again does nothing more.
    ///
    /// ``shared`` is meant to live as long as the process: shut it down only
    /// when nothing will load through it again.
    public func shutdown() async {
        await loop.shutdownAndWait()
    }

    /// Transfers submitted and not yet finished (running or waiting).
    public var outstandingTransfers: Int { loop.outstanding.load(ordering: .relaxed) }

    /// ``Configuration/allowedSchemes``, lower-cased.
    public var allowedSchemes: Set<String> { Set(configuration.allowedSchemes.map { $0.lowercased() }) }

    /// ``Configuration/maxResponseBytes``.
    public var maxResponseBytes: Int64 { configuration.maxResponseBytes }

    /// ``Configuration/clientCertificate``.
    public var clientCertificate: DataRequest.TLSClientCertificate? { configuration.clientCertificate }

    /// curl easy handles currently allocated (0 when idle).
    public var liveEasyHandles: Int { loop.liveHandles.load(ordering: .relaxed) }

    /// Starts loading `request`.
    ///
    /// The scheme must be in ``Configuration/allowedSchemes``, or the
    /// sequence throws ``ImageError/unsupportedScheme(_:)`` without any
    /// network access.
    ///
    /// - Parameter request: What to load.
    /// - Returns: The events; see ``DataLoading/loadData(for:)``.
    public func loadData(for request: DataRequest) -> DataRequest.Transfer {
        let scheme = request.url.scheme?.lowercased() ?? ""
        guard configuration.allowedSchemes.contains(scheme) else {
            return .failing(.unsupportedScheme(scheme))
        }
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: DataRequest.Transfer.Event.self, throwing: (any Error).self
        )
        let transfer = CurlTransfer(
            id: loop.makeID(), request: request, continuation: continuation, configuration: configuration
        )
        let id = transfer.id
        // The closures hold the loader, so it lives as long as any transfer.
        continuation.onTermination = { [self] termination in
            if case .cancelled = termination { loop.post(.cancel(id)) }
        }
        loop.post(.start(transfer))
        return DataRequest.Transfer(
            stream: stream,
            prioritize: { [self] priority in loop.post(.setPriority(id, priority)) },
            consumed: { [self] count in
                if transfer.consumed(count) { loop.post(.resume(id)) }
            },
            stop: { [self] in loop.post(.cancel(id)) },
            failedHead: { transfer.failedHead.withLock { $0 } },
            finalTimings: { transfer.completedTimings.withLock { $0 } }
        )
    }
}
