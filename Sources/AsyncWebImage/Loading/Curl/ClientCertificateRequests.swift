import CCurl
import COpenSSL
import Synchronization
import AWILocking

/// Which live HTTPS transfers met a server that asked for a client
/// certificate, as OpenSSL's handshake reports it.
///
/// A server that refuses the client's certificate (or its absence) often
/// just closes the connection once the handshake is over, and curl then
/// reports a broken pipe; knowing that the server asked for a certificate is
/// what turns that into ``ImageError/NetworkFailure/Kind/clientCertificateRejected``.
/// OpenSSL's client calls a context's certificate callback
/// (`SSL_CTX_set_cert_cb`) exactly when a `CertificateRequest` arrives; curl
/// lets the application install it through `CURLOPT_SSL_CTX_FUNCTION` (its
/// OpenSSL backend only) before each new connection's handshake. That costs
/// nothing per transfer, unlike curl's verbose trace, and reads the protocol
/// rather than curl's wording.
///
/// The callback's argument is a token, a number, not a pointer to the
/// transfer: curl keeps connections and reuses them for later transfers, and
/// under TLS 1.3 (curl enables post-handshake authentication) a server may
/// ask for a certificate on a connection whose first transfer has long been
/// freed. A token whose transfer has ended is no longer registered and its
/// request is ignored, so the table holds one entry per live HTTPS transfer.
enum ClientCertificateRequests {
    private struct State {
        var nextToken: UInt64 = 1
        /// Live tokens, and whether their server asked for a certificate.
        var requested: [UInt64: Bool] = [:]
    }

    private static let state = Lock(State())

    /// Installs the certificate-request callback on the connections `easy`
    /// opens; returns the token to ask ``wasRequested(_:)`` and to
    /// ``unregister(_:)`` with, or nil when curl's TLS backend is not
    /// OpenSSL (curl answers `CURLE_NOT_BUILT_IN`; the refusal is then named
    /// only when the server's alert reaches curl).
    static func install(on easy: UnsafeMutableRawPointer) -> UInt64? {
        let token = state.withLock { state in
            defer { state.nextToken &+= 1 }
            state.requested[state.nextToken] = false
            return state.nextToken
        }
        let installed = CCurl_easy_setopt_ssl_ctx_function(easy) { _, context, argument in
            guard let context else { return CURLE_OK }
            SSL_CTX_set_cert_cb(OpaquePointer(context), { _, argument in
                ClientCertificateRequests.note(UInt64(UInt(bitPattern: argument)))
                return 1 // carry on: curl has already set the certificate, if any
            }, argument)
            return CURLE_OK
        } == CURLE_OK
            && CCurl_easy_setopt_ptr(easy, CURLOPT_SSL_CTX_DATA, UnsafeMutableRawPointer(bitPattern: UInt(token))) == CURLE_OK
        guard installed else {
            unregister(token)
            return nil
        }
        return token
    }

    /// Records that the server of `token`'s connection asked for a
    /// certificate (OpenSSL's callback, on the loop thread).
    private static func note(_ token: UInt64) {
        state.withLock { state in
            if state.requested[token] != nil { state.requested[token] = true }
        }
    }

    /// Whether the server of `token`'s transfer asked for a certificate.
    static func wasRequested(_ token: UInt64) -> Bool {
        state.withLock { $0.requested[token] ?? false }
    }

    /// Forgets `token` (its transfer has ended).
    static func unregister(_ token: UInt64) {
        _ = state.withLock { $0.requested.removeValue(forKey: token) }
    }
}
