public import HTTPTypes

extension CurlDataLoader {
    /// In which order transfers waiting for a slot start, within one priority.
    public enum ExecutionOrder: Sendable, Hashable {
        /// First come, first served (the default).
        case fifo
        /// Newest first: the image the user scrolled to last loads first.
        case lifo
    }

    /// How a ``CurlDataLoader`` loads. Every property has a documented default.
    public struct Configuration: Sendable {
        // MARK: Concurrency

        /// The most transfers running at once; the rest wait. `6` by default.
        public var maxConcurrentDownloads: Int = 6
        /// The order in which waiting transfers of one priority start. `.fifo` by default.
        public var executionOrder: ExecutionOrder = .fifo
        /// The most transfers running at once to one host (name and port);
        /// `nil` (the default) for no limit but ``maxConcurrentDownloads``.
        /// With a limit, a host at it waits while others start, and waiting
        /// hosts take turns, so one slow or stalled origin cannot hold every
        /// slot. Also given to curl as `CURLMOPT_MAX_HOST_CONNECTIONS`.
        public var maxConnectionsPerHost: Int?
        /// The most body bytes per second one transfer receives
        /// (`CURLOPT_MAX_RECV_SPEED_LARGE`); `nil` (the default) for no cap.
        public var maxReceiveBytesPerSecond: Int64?

        // MARK: Time

        /// How long connecting may take, and how long a transfer may stall
        /// (receive nothing) before it fails with ``ImageError/timeout(_:)``.
        /// `15` seconds by default. A stall is measured in whole seconds
        /// (curl's low-speed check), so the stall limit is rounded up.
        public var timeout: Duration = .seconds(15)
        /// The longest one transfer may take in all, from connecting to the
        /// last byte, however steadily bytes arrive; past it the transfer
        /// fails with ``ImageError/timeout(_:)``. `60` seconds by default;
        /// `nil` for no limit. Without it a server trickling one byte a
        /// second never stalls and would hold a transfer (and its slot) for
        /// days. Time paused for a slow consumer counts too.
        public var transferTimeout: Duration? = .seconds(60)

        // MARK: Headers

        /// Header fields sent with every request; a request's own fields
        /// replace these by name (in any case). By default `User-Agent: AsyncWebImage/<version>`
        /// and `Accept: image/*,*/*;q=0.8`.
        public var defaultHeaders: HTTPFields = [
            .userAgent: "AsyncWebImage/\(CurlDataLoader.version)",
            .accept: "image/*,*/*;q=0.8",
        ]

        // MARK: Limits and safety

        /// The most redirects followed before ``ImageError/NetworkFailure/Kind/tooManyRedirects``. `10` by default.
        public var maxRedirects: Int = 10
        /// The schemes that may be loaded, lower case, also for redirect
        /// targets: `http` and `https` by default. `file` and `ftp` (and
        /// others curl knows) only when added.
        public var allowedSchemes: Set<String> = ["http", "https"]
        /// The most body bytes of one response: checked against `Content-Length`
        /// when the head arrives and against the bytes while they arrive, so
        /// the transfer stops as soon as it is over. 64 MiB by default.
        public var maxResponseBytes: Int64 = 64 * 1024 * 1024
        /// Refuses connections to internal addresses (loopback, private,
        /// link-local, CGNAT, multicast, ... also inside IPv6), checked on
        /// the address each socket actually connects to. `nil` (off) by
        /// default; a server fetching user-supplied URLs should set
        /// `DestinationGuard()`. With a proxy, the proxy's address is what is checked.
        public var destinationGuard: CurlDataLoader.DestinationGuard?
        /// Body bytes delivered but not yet taken by a slow consumer before
        /// the transfer pauses (the socket then stops being read). 1 MiB by default.
        /// A body curl decodes (`Content-Encoding`) is not paused: it is
        /// bounded by ``maxResponseBytes`` instead (see `CurlTransfer.receiveBody`).
        public var maxBufferedBytes: Int = 1024 * 1024

        // MARK: Protocol

        /// Ask for HTTP/2 over TLS (multiplexed on one connection per host
        /// where the server offers it; HTTP/1.1 otherwise). `true` by default.
        public var allowsHTTP2: Bool = true
        /// Accept gzip, deflate, brotli and zstd content encodings (decoded
        /// before the size limit is applied). `true` by default.
        public var acceptsCompressedResponses: Bool = true

        // MARK: TLS

        /// A file of PEM certificates of the authorities trusted to sign
        /// servers' certificates (`CURLOPT_CAINFO`), in place of the
        /// system's bundle; nil (the default) for the system's.
        public var caBundlePath: String?
        /// A directory of trusted authorities' certificates, named by
        /// subject hash as `openssl rehash` makes them (`CURLOPT_CAPATH`);
        /// nil (the default) for the system's.
        public var caDirectoryPath: String?
        /// The client certificate presented to servers that ask for one,
        /// for requests that set none (``DataRequest/clientCertificate``);
        /// nil (the default) for none. An ``ImageLoader`` stamps it on each
        /// request, so it is part of the request identity and cache keys.
        public var clientCertificate: DataRequest.TLSClientCertificate?
        /// The public keys a server's certificate must have, in curl's form
        /// (`CURLOPT_PINNEDPUBLICKEY`): `sha256//` and the base64 SHA-256 of
        /// the key's DER `SubjectPublicKeyInfo`, several separated by `;`
        /// (or the path of a PEM/DER public key file). A server with another
        /// key fails with ``ImageError/NetworkFailure/Kind/publicKeyPinMismatch``,
        /// even when its certificate is otherwise trusted. nil (the default) pins nothing.
        public var pinnedPublicKey: String?
        /// The oldest TLS version accepted (`CURLOPT_SSLVERSION`); nil (the
        /// default) for curl's (TLS 1.2 with the OpenSSL it uses here).
        public var minimumTLSVersion: TLSVersion?

        // MARK: Proxy

        /// The proxy every request goes through (`CURLOPT_PROXY`), as a URL
        /// such as `http://proxy.example:3128` (`socks5h://` works too); nil (the
        /// default) for the environment's (`http_proxy`, `https_proxy`), as
        /// curl does. HTTPS requests are tunnelled (`CONNECT`), so the proxy
        /// sees the host name only. A proxy that cannot be reached, or that
        /// refuses the request, fails with ``ImageError/NetworkFailure/Kind/proxy``.
        public var proxy: String?
        /// The user name for the proxy (Basic authentication, `CURLOPT_PROXYUSERNAME`);
        /// nil (the default) for none.
        public var proxyUser: String?
        /// The password for the proxy (`CURLOPT_PROXYPASSWORD`); nil (the default) for none.
        public var proxyPassword: String?
        /// Hosts reached directly, never through the proxy (`CURLOPT_NOPROXY`):
        /// a name matches itself and its subdomains, `*` matches every host,
        /// IP addresses match exactly. nil (the default) for the environment's `no_proxy`.
        public var noProxy: [String]?

        /// Creates the default configuration. Proxies come from the
        /// environment (`http_proxy`, `https_proxy`, `no_proxy`), as curl
        /// does, unless ``proxy`` and ``noProxy`` are set.
        public init() {}
    }

    /// The library's version, as sent in the default `User-Agent`.
    public static let version = "0.1.0"
}
