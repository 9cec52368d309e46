public import Foundation

/// Every failure AsyncWebImage reports, as cases a caller can switch on.
///
/// Cancellation is not an `ImageError`: a cancelled load throws
/// `CancellationError`. Descriptions carry the underlying library's own
/// message (curl's, TurboJPEG's `tjGetErrorStr2`, spng's `spng_strerror`),
/// with every URL in them redacted (``RedactedURL``).
public enum ImageError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// The URL could not be parsed or has no host where one is needed.
    case invalidURL(String)
    /// The URL failed before for a reason retrying will not fix; pass `.retryFailed` to try anyway.
    case blockedURL(URL)
    /// The URL's scheme is not in the allow-list (http and https by default).
    case unsupportedScheme(String)
    /// The destination address is refused by the destination guard (private, loopback, ...).
    case destinationNotAllowed(String)
    /// A request modifier refused the request.
    case requestRejected(String)
    /// A response modifier rejected the response (for example a non-image `Content-Type`).
    case responseRejected(String)
    /// The server answered with an HTTP status of 400 or more.
    case httpStatus(Int)
    /// The transfer failed below HTTP; carries curl's code and message.
    case network(NetworkFailure)
    /// Connecting took too long, or the transfer stalled, past the configured timeout.
    case timeout(String)
    /// A limit was exceeded: bytes received, or pixels declared by the header.
    case tooLarge(LimitKind, limit: Int64, actual: Int64?)
    /// The data is in a known format but could not be decoded; carries the codec's message.
    case undecodable(ImageFormat, String)
    /// No registered decoder handles this format (`.unknown` for data that is
    /// not an image at all). The description names the product whose coder
    /// reads it (`AsyncWebImageWebP` for WebP, say). Cached data is never
    /// removed for it: the loader that cannot read the entry is the limit,
    /// not the entry.
    case unsupportedFormat(ImageFormat)
    /// Pixel bytes and dimensions given to `Image` do not agree.
    case invalidImage(String)
    /// Encoding failed; carries the codec's message.
    case encodingFailed(ImageFormat, String)
    /// `.fromCacheOnly` was set and no cache had the image.
    case cacheMiss
    /// A transformer failed; carries its key and the reason.
    case transformFailed(key: String, reason: String)
    /// A cache file operation failed; carries the path and `errno`.
    case diskIO(path: String, errno: Int32, message: String)
    /// A shared cache tier (Redis) could not take a write: unreachable,
    /// timed out, its breaker open, or its write queue full. Never the
    /// outcome of a load: a tier that fails to read is a miss.
    case sharedCache(String)
    /// The loader was shut down (``ImageLoader/shutdown()``), or its data
    /// loader was: no load starts any more, and loads in flight end with this.
    case shutDown

    /// What a ``tooLarge(_:limit:actual:)`` limit counts.
    public enum LimitKind: String, Sendable, Hashable {
        /// Bytes of a response body.
        case bytes
        /// Pixels declared by an image header.
        case pixels
        /// Bytes a decoded image would occupy.
        case decodedBytes
        /// Scans of a JPEG (``ImageDecodingOptions/maxScanCount``).
        case scans
        /// 8×8 blocks a JPEG's scans code, summed (``ImageDecodingOptions/maxScanBlockCount``).
        case scanBlocks
        /// Pixels of all an animation's frames together (``ImageDecodingOptions/maxAnimationPixelCount``).
        case animationPixels
        /// Elements a vector document draws, each element a reference
        /// (`<use>`, a pattern, a filter) brings in counted again (`SVGCoder`).
        case renderedElements
        /// References followed one inside another (`<use>` of a `<use>`…; `SVGCoder`).
        case referenceDepth
        /// Filter primitives a vector document applies, each application
        /// counted, weighted by its cost (`SVGCoder`).
        case filterPrimitives
        /// Pixels filter primitives would process: their applications times the raster's pixels (`SVGCoder`).
        case filterPixels
    }

    /// A failure of the transfer itself, below HTTP.
    public struct NetworkFailure: Sendable, Hashable, CustomStringConvertible {
        /// Broad classes of network failure a caller may treat differently.
        public enum Kind: String, Sendable, Hashable {
            /// The host name did not resolve.
            case cannotResolveHost
            /// No connection could be made.
            case cannotConnect
            /// The TLS handshake failed for a reason the cases below do not name.
            case tls
            /// More redirects than allowed, or a redirect loop.
            case tooManyRedirects
            /// The connection dropped or the body ended early.
            case connectionLost
            /// The server sent something that is not valid HTTP.
            case protocolError
            /// A redirect pointed to a scheme that is not allowed (`file:`, `ftp:`, `gopher:`, ...).
            case redirectRefused
            /// Anything else.
            case other
            /// The server's certificate is not trusted: no trusted authority
            /// signed it (self-signed, an unknown CA), or it is not for the
            /// host name asked for (`CURLE_PEER_FAILED_VERIFICATION`).
            case certificateUntrusted
            /// The server's certificate (or one of its chain) has expired or
            /// is not valid yet (`CURLE_PEER_FAILED_VERIFICATION` with
            /// OpenSSL's verify result naming the dates).
            case certificateExpired
            /// The server's public key is not one of
            /// ``CurlDataLoader/Configuration/pinnedPublicKey`` (`CURLE_SSL_PINNEDPUBKEYNOTMATCH`).
            case publicKeyPinMismatch
            /// The server asked for a client certificate and refused the
            /// connection: none was given, or it did not accept the one given.
            case clientCertificateRejected
            /// The client certificate or its key could not be used: a missing
            /// or unreadable file, a wrong format or pass phrase (`CURLE_SSL_CERTPROBLEM`).
            case clientCertificateInvalid
            /// The proxy failed: its name did not resolve, it could not be
            /// reached, or it refused the request (`407` for bad credentials).
            case proxy
        }

        /// Which class of failure this is.
        public var kind: Kind
        /// curl's `CURLcode` value (0 when the failure did not come from curl).
        public var code: Int
        /// curl's message for the failure, with its error buffer when it had one.
        public var message: String

        /// Creates a network failure.
        public init(kind: Kind, code: Int, message: String) {
            self.kind = kind
            self.code = code
            self.message = message
        }

        public var description: String { "\(kind.rawValue) (curl \(code)): \(message)" }
    }

    /// Whether retrying the same request cannot help: HTTP 4xx other than 408
    /// and 429, data that is not a decodable image, or a size over a limit.
    /// Only these put a request identity (URL plus credentials and other
    /// header fields) on the loader's failed-URL list. An image format no
    /// coder reads (``unsupportedFormat(_:)`` of a known format) is not
    /// permanent: a coder registered later can read it; data that is no
    /// image format at all (`.unknown`: an HTML login page, say) is.
    public var isPermanent: Bool {
        switch self {
        case .httpStatus(let code): (400..<500).contains(code) && code != 408 && code != 429
        case .unsupportedFormat(let format): format == .unknown
        case .undecodable, .tooLarge, .invalidURL, .unsupportedScheme: true
        default: false
        }
    }

    /// Whether cached data that fails to decode this way is itself at
    /// fault, so the entry is removed and the load goes on as a miss: the
    /// rule of every disk read that decodes. Only a coder that reads the
    /// entry's format can condemn it (``undecodable(_:_:)``,
    /// ``invalidImage(_:)``); a format no registered coder reads
    /// (``unsupportedFormat(_:)``) is this loader's limit — another loader of
    /// the fleet, with that format's product, reads the same entry — and a
    /// limit (``tooLarge(_:limit:actual:)``) is the load's.
    var condemnsCachedData: Bool {
        switch self {
        case .undecodable, .invalidImage: true
        default: false
        }
    }

    /// One line saying what went wrong, with every URL in it redacted
    /// (``RedactedURL``: userinfo, signatures, tokens), so that a log line
    /// or a span built from an error carries no secret.
    public var description: String {
        RedactedURL(unredactedDescription).description
    }

    private var unredactedDescription: String {
        switch self {
        case .invalidURL(let url): "invalid URL: \(url)"
        case .blockedURL(let url): "URL failed before and is blocked until retried with .retryFailed: \(url.absoluteString)"
        case .unsupportedScheme(let scheme): "URL scheme not allowed: \(scheme)"
        case .destinationNotAllowed(let address): "destination address not allowed: \(address)"
        case .requestRejected(let reason): "request refused by the request modifier: \(reason)"
        case .responseRejected(let reason): "response rejected: \(reason)"
        case .httpStatus(let code): "HTTP status \(code)"
        case .network(let failure): "network error: \(failure)"
        case .timeout(let message): "timed out: \(message)"
        case .tooLarge(let kind, let limit, let actual):
            "too large: \(actual.map { "\($0)" } ?? "more than \(limit)") \(kind.rawValue), limit \(limit)"
        case .undecodable(let format, let message): "cannot decode \(format) data: \(message)"
        case .unsupportedFormat(let format):
            if let reader = format.readingProduct {
                "no decoder for \(format) data: \(reader.coder) of the \(reader.product) product reads it (add it to configuration.coders)"
            } else {
                "no decoder for \(format) data"
            }
        case .invalidImage(let message): "invalid image: \(message)"
        case .encodingFailed(let format, let message): "cannot encode \(format): \(message)"
        case .cacheMiss: "not in cache (.fromCacheOnly)"
        case .transformFailed(let key, let reason): "transform \(key) failed: \(reason)"
        case .diskIO(let path, let code, let message): "cache file error on \(path): \(message) (errno \(code))"
        case .sharedCache(let message): "shared cache: \(message)"
        case .shutDown: "the loader was shut down"
        }
    }

    /// ``description``, so that `error.localizedDescription` says what went
    /// wrong instead of Foundation's "The operation could not be completed".
    public var errorDescription: String? { description }
}
