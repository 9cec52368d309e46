import CCurl

extension ImageError {
    /// The typed error for a failed curl transfer, carrying curl's message
    /// and the transfer's error buffer.
    /// - Parameters:
    ///   - code: The transfer's result.
    ///   - detail: The text of `CURLOPT_ERRORBUFFER`, possibly empty.
    ///   - url: The URL curl last worked on (after a redirect, its target), for the messages that name it.
    ///   - schemeAllowed: Whether `url`'s scheme is one the transfer may use.
    ///     curl's unsupported-protocol code means either a refused scheme or an
    ///     upstream whose answer is not HTTP it accepts (an SSH banner, `HTTP/1.2`,
    ///     junk after a `100`: "HTTP/0.9 not allowed"); only this tells them apart.
    ///   - redirected: Whether curl followed a redirect to get to `url`.
    init(curlCode code: CURLcode, detail: String, url: String, schemeAllowed: Bool = false, redirected: Bool = false) {
        let summary = String(cString: curl_easy_strerror(code))
        let message = detail.isEmpty ? summary : "\(summary): \(detail)"
        let number = Int(code.rawValue)
        func network(_ kind: NetworkFailure.Kind) -> ImageError {
            .network(NetworkFailure(kind: kind, code: number, message: message))
        }
        switch code {
        case CURLE_OPERATION_TIMEDOUT: self = .timeout(message)
        case CURLE_UNSUPPORTED_PROTOCOL where schemeAllowed: self = network(.protocolError)
        case CURLE_UNSUPPORTED_PROTOCOL where redirected: self = network(.redirectRefused)
        case CURLE_UNSUPPORTED_PROTOCOL:
            self = .unsupportedScheme(url.split(separator: ":", maxSplits: 1).first.map(String.init) ?? url)
        case CURLE_URL_MALFORMAT: self = .invalidURL(url)
        case CURLE_FILESIZE_EXCEEDED: self = .tooLarge(.bytes, limit: 0, actual: nil)
        case CURLE_COULDNT_RESOLVE_HOST: self = network(.cannotResolveHost)
        case CURLE_COULDNT_RESOLVE_PROXY, CURLE_PROXY: self = network(.proxy)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_ISSUER_ERROR: self = network(.certificateUntrusted)
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH: self = network(.publicKeyPinMismatch)
        case CURLE_SSL_CERTPROBLEM: self = network(.clientCertificateInvalid)
        case CURLE_SSL_CLIENTCERT: self = network(.clientCertificateRejected)
        case CURLE_COULDNT_CONNECT: self = network(.cannotConnect)
        case CURLE_TOO_MANY_REDIRECTS: self = network(.tooManyRedirects)
        case CURLE_SSL_CONNECT_ERROR,
             CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE,
             CURLE_SSL_INVALIDCERTSTATUS,
             CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_SHUTDOWN_FAILED,
             CURLE_SSL_CRL_BADFILE, CURLE_USE_SSL_FAILED:
            self = network(.tls)
        case CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR:
            self = network(.connectionLost)
        case CURLE_WEIRD_SERVER_REPLY, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_BAD_CONTENT_ENCODING,
             CURLE_HTTP3, CURLE_RANGE_ERROR:
            self = network(.protocolError)
        default: self = network(.other)
        }
    }
}
