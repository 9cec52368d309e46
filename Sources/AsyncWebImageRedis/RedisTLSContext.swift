import COpenSSL

/// One OpenSSL `SSL_CTX` for a store's TLS connections: the trusted
/// authorities, the client certificate and the oldest protocol (TLS 1.2),
/// loaded once; each connection makes its `SSL` from it.
final class RedisTLSContext {
    let pointer: OpaquePointer

    /// Loads `tls`'s files.
    ///
    /// - Throws: ``RedisFailure/tls(_:)`` with OpenSSL's reason when a
    ///   file cannot be read or the key does not match the certificate.
    init(_ tls: RedisStore.TLS) throws(RedisFailure) {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw .tls("SSL_CTX_new: " + Self.lastError()) }
        pointer = context
        // Both are checked during the handshake: the chain against the
        // trusted authorities here, the name against the connection's own
        // (set by RedisTLSHandler).
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        guard COpenSSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1 else {
            throw .tls("cannot require TLS 1.2: " + Self.lastError())
        }
        if let caFile = tls.caFile {
            guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                throw .tls("cannot load the CA file \(caFile): " + Self.lastError())
            }
        } else {
            guard SSL_CTX_set_default_verify_paths(context) == 1 else {
                throw .tls("cannot load the system's trusted authorities: " + Self.lastError())
            }
        }
        if let certificateFile = tls.certificateFile {
            guard let privateKeyFile = tls.privateKeyFile else { throw .tls("a client certificate needs its private key file") }
            guard SSL_CTX_use_certificate_chain_file(context, certificateFile) == 1 else {
                throw .tls("cannot load the client certificate \(certificateFile): " + Self.lastError())
            }
            guard SSL_CTX_use_PrivateKey_file(context, privateKeyFile, SSL_FILETYPE_PEM) == 1,
                  SSL_CTX_check_private_key(context) == 1 else {
                throw .tls("cannot load the private key \(privateKeyFile) of the client certificate: " + Self.lastError())
            }
        }
    }

    deinit {
        SSL_CTX_free(pointer)
    }

    /// OpenSSL's queued errors of this thread, oldest first, as one line (the queue emptied).
    static func lastError() -> String {
        var messages: [String] = []
        // Bounded: OpenSSL's error queue holds at most 16 entries.
        for _ in 0..<16 {
            let code = ERR_get_error()
            guard code != 0 else { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages.isEmpty ? "unknown OpenSSL error" : messages.joined(separator: "; ")
    }
}

// Safe: the SSL_CTX is configured in `init` and never changed afterwards;
// connections only read it through SSL_new, which OpenSSL (1.1 and later)
// documents as safe from several threads on one SSL_CTX (its reference
// count and internal caches are locked). It is freed once, in `deinit`,
// when no connection can use it any more (each handler holds the context).
extension RedisTLSContext: @unchecked Sendable {}
