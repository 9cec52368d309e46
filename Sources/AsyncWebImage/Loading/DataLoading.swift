/// Something that loads the bytes behind a ``DataRequest``:
/// ``CurlDataLoader`` by default, replaceable (for example by a loader for a
/// shared cache tier, or a stub in tests).
public protocol DataLoading: Sendable {
    /// Starts loading `request` and returns its events.
    ///
    /// The returned sequence yields the response head, then body chunks,
    /// then ends; it throws ``ImageError`` for failures (HTTP status of 400
    /// or more as ``ImageError/httpStatus(_:)``) and `CancellationError` when
    /// the consuming task is cancelled.
    ///
    /// - Parameter request: What to load.
    /// - Returns: The transfer's events.
    /// - Important: The work stops when the consuming task is cancelled or
    ///   when the sequence and its iterator are released unfinished.
    ///   Implementations must not block the caller.
    func loadData(for request: DataRequest) -> DataRequest.Transfer

    /// The URL schemes this loader fetches, lower case.
    ///
    /// The loader owns this policy: ``ImageLoader`` refuses other schemes
    /// with ``ImageError/unsupportedScheme(_:)`` before any cache lookup or
    /// other work, so there is one list to configure. `http` and `https`
    /// unless the loader says otherwise.
    var allowedSchemes: Set<String> { get }

    /// The most body bytes one response may have.
    ///
    /// The loader owns this policy too: its download coalescer stops a
    /// transfer whose bytes pass it with
    /// ``ImageError/tooLarge(_:limit:actual:)``, a guard that holds even for a
    /// loader that does not enforce its own limit. 64 MiB unless the loader
    /// says otherwise.
    var maxResponseBytes: Int64 { get }

    /// The TLS client certificate this loader presents to every server, if
    /// any. It changes what a server may return, so ``ImageLoader`` puts it
    /// in each request's identity (two certificates never share a cache
    /// entry). `nil` unless the loader says otherwise.
    var clientCertificate: DataRequest.TLSClientCertificate? { get }
}

extension DataLoading {
    /// `http` and `https`.
    public var allowedSchemes: Set<String> { ["http", "https"] }

    /// 64 MiB.
    public var maxResponseBytes: Int64 { 64 * 1024 * 1024 }

    /// None.
    public var clientCertificate: DataRequest.TLSClientCertificate? { nil }
}
