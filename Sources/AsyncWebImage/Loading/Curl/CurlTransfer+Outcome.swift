import CCurl
import Foundation
import Synchronization
import AWILocking

/// How a transfer ends: a stall past the timeout, and curl's result mapped
/// to an ``ImageError`` refined by what only the transfer knows.
extension CurlTransfer {
    // MARK: Stall

    /// When the transfer will have stalled for the configured timeout, or
    /// nil when it is paused for a slow consumer (which is not a stall).
    func stallDeadline(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        if flow.withLock({ $0.paused }) {
            lastActivity = now
            return nil
        }
        return lastActivity + configuration.timeout
    }

    /// Marks the transfer as timed out; the loop thread then removes it.
    func timeOut() {
        abortError = .timeout("no data received for \(configuration.timeout)")
    }

    // MARK: Completion

    /// The result of a transfer curl reports done with `code`.
    func outcome(_ code: CURLcode) -> Result<Void, ImageError> {
        if let abortError { return .failure(abortError) }
        guard code == CURLE_OK else {
            var url = request.url.absoluteString
            if code == CURLE_UNSUPPORTED_PROTOCOL, let easy {
                // A refused redirect names the target's scheme, not the request's.
                var pointer: UnsafeMutablePointer<CChar>?
                CCurl_easy_getinfo_string(easy, CURLINFO_EFFECTIVE_URL, &pointer)
                if let pointer { url = String(cString: pointer) }
            }
            let allowed = Set(configuration.allowedSchemes.map { $0.lowercased() })
            let requestSchemeAllowed = allowed.contains(request.url.scheme?.lowercased() ?? "")
            let schemeAllowed = allowed.contains(url.prefix { $0 != ":" }.lowercased())
            // The request's own scheme was allowed and the one curl ended at is
            // not: only a redirect gets there.
            let redirected = requestSchemeAllowed && !schemeAllowed
            return .failure(refined(ImageError(
                curlCode: code, detail: String(cString: errorBuffer), url: url,
                schemeAllowed: schemeAllowed, redirected: redirected
            ), code: code))
        }
        if !headDelivered, !deliverHead() { return .failure(abortError ?? .httpStatus(statusCode ?? 0)) }
        if var final = timings(), let easy {
            var microseconds: curl_off_t = 0
            CCurl_easy_getinfo_off(easy, CURLINFO_TOTAL_TIME_T, &microseconds)
            final.total = .microseconds(Int64(microseconds))
            completedTimings.withLock { $0 = final }
        }
        return .success(())
    }

    /// `error` (curl's `code`, mapped by code alone) named more precisely
    /// from what only the transfer knows: OpenSSL's verify result (an
    /// expired certificate), the handshake (a refused client certificate),
    /// and whether the connection was the proxy's.
    func refined(_ error: ImageError, code: CURLcode) -> ImageError {
        guard case .network(var failure) = error, let easy else { return error }
        switch code {
        case CURLE_PEER_FAILED_VERIFICATION:
            // X509_V_ERR_CERT_NOT_YET_VALID (9), X509_V_ERR_CERT_HAS_EXPIRED (10).
            var result = 0
            CCurl_easy_getinfo_long(easy, CURLINFO_SSL_VERIFYRESULT, &result)
            if result == 9 || result == 10 { failure.kind = .certificateExpired }
        case CURLE_SSL_CONNECT_ERROR, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_HTTP2, CURLE_GOT_NOTHING:
            // Seen against `nghttpd --verify-client` with no certificate, TLS 1.3:
            // CURLE_HTTP2 ("Broken pipe"), CURLE_SEND_ERROR, or CURLE_RECV_ERROR
            // naming the "certificate required" alert; TLS 1.2: CURLE_SSL_CONNECT_ERROR.
            let alerted = ["alert certificate required", "alert bad certificate", "alert unknown ca",
                           "alert certificate unknown", "alert certificate revoked", "alert certificate expired"]
                .contains { failure.message.contains($0) }
            var connectCode = 0
            CCurl_easy_getinfo_long(easy, CURLINFO_HTTP_CONNECTCODE, &connectCode)
            if connectCode >= 300 || (code == CURLE_RECV_ERROR && failure.message.contains("CONNECT tunnel failed")) {
                failure.kind = .proxy
            } else if alerted || (certificateRequestToken.map(ClientCertificateRequests.wasRequested) == true && !headDelivered) {
                failure.kind = .clientCertificateRejected
            }
        case CURLE_COULDNT_CONNECT where usesConfiguredProxy:
            failure.kind = .proxy
        default:
            break
        }
        return .network(failure)
    }
}
