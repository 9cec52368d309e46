import AsyncWebImage

/// Why a thumbnail could not be made, as the HTTP status the client gets.
///
/// Built from the library's ``ImageError`` by ``init(_:)``: the mapping is
/// the part of this example a real deployment most needs to agree with.
enum ThumbnailError: Error, Sendable, Equatable {
    /// 400: a missing or malformed parameter.
    case badRequest(String)
    /// 403: the host is not on the allow-list, the destination guard
    /// refused the address it resolved to, or a redirect led to a refused scheme.
    case forbidden(String)
    /// 404: no route of this server has that path.
    case notFound
    /// 414: the request target (which carries the source URL) is longer
    /// than `--max-url-length`.
    case uriTooLong(String)
    /// 413: the upstream body or the image's pixel count is over a limit.
    case tooLarge(String)
    /// 415: the upstream bytes are not an image this server decodes.
    case notAnImage(String)
    /// 502: the upstream answered with an error, or the transfer failed.
    case upstreamFailed(String)
    /// 504: the upstream did not connect or stalled past the timeout.
    case upstreamTimeout(String)
    /// 500: something that is this server's fault.
    case internalError(String)

    /// The HTTP status code.
    var status: Int {
        switch self {
        case .badRequest: 400
        case .forbidden: 403
        case .notFound: 404
        case .tooLarge: 413
        case .uriTooLong: 414
        case .notAnImage: 415
        case .upstreamFailed: 502
        case .upstreamTimeout: 504
        case .internalError: 500
        }
    }

    /// A one-line explanation for the response body.
    var message: String {
        switch self {
        case .notFound:
            "not found"
        case .badRequest(let text), .forbidden(let text), .tooLarge(let text), .uriTooLong(let text), .notAnImage(let text),
             .upstreamFailed(let text), .upstreamTimeout(let text), .internalError(let text):
            text
        }
    }

    /// Maps a library failure to the status a client of a thumbnail proxy expects.
    init(_ error: ImageError) {
        let text = error.description
        switch error {
        case .invalidURL, .unsupportedScheme:
            self = .badRequest(text)
        case .destinationNotAllowed, .requestRejected:
            self = .forbidden(text)
        case .network(let failure) where failure.kind == .redirectRefused:
            self = .forbidden(text)
        case .tooLarge:
            self = .tooLarge(text)
        case .unsupportedFormat, .undecodable, .responseRejected:
            self = .notAnImage(text)
        case .timeout:
            self = .upstreamTimeout(text)
        case .httpStatus, .network, .blockedURL:
            self = .upstreamFailed(text)
        case .invalidImage, .encodingFailed, .cacheMiss, .transformFailed, .diskIO, .sharedCache, .shutDown:
            self = .internalError(text)
        }
    }
}
