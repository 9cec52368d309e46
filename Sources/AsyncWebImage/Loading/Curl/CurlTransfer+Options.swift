import CCurl
import Foundation
import HTTPTypes

/// The easy handle's options, one group a function: the callbacks that
/// route curl back into the transfer, the limits (schemes, redirects,
/// time, speed), the protocol, TLS, the proxy, the credential, and the
/// request itself (headers, cookies).
extension CurlTransfer {
    /// The transfer's own pointer, handed to curl with each callback.
    private var opaqueSelf: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// The URL, the error buffer, and the callbacks: body and header
    /// writes, the pre-request check (one origin request per attempt), and
    /// the destination guard at every socket curl opens.
    func configureCallbacks(_ easy: UnsafeMutableRawPointer) throws {
        let this = opaqueSelf
        try check(CCurl_easy_setopt_string(easy, CURLOPT_URL, request.url.absoluteString))
        try check(CCurl_easy_setopt_ptr(easy, CURLOPT_PRIVATE, this))
        try check(CCurl_easy_setopt_ptr(easy, CURLOPT_ERRORBUFFER, errorBuffer))
        try check(CCurl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
        try check(CCurl_easy_setopt_write_function(easy, CURLOPT_WRITEFUNCTION) { data, size, count, user in
            guard let user else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
            return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
        })
        try check(CCurl_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, this))
        try check(CCurl_easy_setopt_write_function(easy, CURLOPT_HEADERFUNCTION) { data, size, count, user in
            guard let user else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
            return transfer.receiveHeader(UnsafeRawBufferPointer(start: data, count: size * count))
        })
        try check(CCurl_easy_setopt_ptr(easy, CURLOPT_HEADERDATA, this))
        try check(CCurl_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, 65_536))
        // One origin request per attempt: no silent re-send (`willSendRequest`).
        try check(CCurl_easy_setopt_prereq_function(easy) { user, _, _, _, _ in
            guard let user else { return CURL_PREREQFUNC_ABORT }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
            return transfer.willSendRequest() ? CURL_PREREQFUNC_OK : CURL_PREREQFUNC_ABORT
        })
        try check(CCurl_easy_setopt_ptr(easy, CURLOPT_PREREQDATA, this))
        // The destination guard checks every address curl is about to
        // connect to, after DNS and after each redirect, so neither a
        // redirect nor DNS rebinding can slip past it.
        if configuration.destinationGuard != nil {
            try check(CCurl_easy_setopt_opensocket_function(easy) { user, _, address in
                guard let user, let address else { return CURL_SOCKET_BAD }
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
                return transfer.openSocket(address)
            })
            try check(CCurl_easy_setopt_ptr(easy, CURLOPT_OPENSOCKETDATA, this))
        }
    }

    /// Schemes (for the first URL and every redirect target), redirects,
    /// time and speed.
    func configureLimits(_ easy: UnsafeMutableRawPointer) throws {
        let schemes = configuration.allowedSchemes.map { $0.lowercased() }.sorted().joined(separator: ",")
        try check(CCurl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, schemes))
        try check(CCurl_easy_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, schemes))
        try check(CCurl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, request.followRedirects ? 1 : 0))
        try check(CCurl_easy_setopt_long(easy, CURLOPT_MAXREDIRS, configuration.maxRedirects))
        // Time: curl bounds connecting; the loop thread bounds a stall (see
        // `stalled(at:)`), because curl's low-speed check averages over
        // several seconds and would fire seconds late after a burst.
        try check(CCurl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(configuration.timeout)))
        // The stall check cannot catch a trickle (a byte a second is never
        // a stall): curl's own total timeout bounds the whole transfer.
        if let total = configuration.transferTimeout {
            try check(CCurl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, Self.milliseconds(total)))
        }
        lastActivity = .now
        if let speed = configuration.maxReceiveBytesPerSecond {
            try check(CCurl_easy_setopt_off(easy, CURLOPT_MAX_RECV_SPEED_LARGE, curl_off_t(max(1, speed))))
        }
    }

    /// `duration` in whole milliseconds, at least 1, as curl's `_MS` options take it.
    private static func milliseconds(_ duration: Duration) -> Int {
        Int(max(1, duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000))
    }

    /// The HTTP version, compression, and how a proxy's `CONNECT` answer is read.
    func configureProtocol(_ easy: UnsafeMutableRawPointer) throws {
        if configuration.allowsHTTP2 {
            try check(CCurl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS)))
            // Over TLS, wait for a connection that may multiplex instead of
            // opening another. Not for plain http, which never multiplexes
            // here (no h2c): there the wait would hold every transfer to a
            // new host until the first response arrives.
            if request.url.scheme?.lowercased() == "https" {
                try check(CCurl_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1))
            }
        } else {
            try check(CCurl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1)))
        }
        if configuration.acceptsCompressedResponses {
            try check(CCurl_easy_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, ""))
        }
        // A proxy's CONNECT answer must not be taken for the response head.
        try check(CCurl_easy_setopt_long(easy, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1))
    }

    /// The TLS options: trust store, client certificate, pin, version, and
    /// the handshake observer that tells a refused client certificate apart
    /// from a dropped connection.
    func configureTLS(_ easy: UnsafeMutableRawPointer) throws {
        if let path = configuration.caBundlePath { try check(CCurl_easy_setopt_string(easy, CURLOPT_CAINFO, path)) }
        if let path = configuration.caDirectoryPath { try check(CCurl_easy_setopt_string(easy, CURLOPT_CAPATH, path)) }
        if let pin = configuration.pinnedPublicKey { try check(CCurl_easy_setopt_string(easy, CURLOPT_PINNEDPUBLICKEY, pin)) }
        if let version = configuration.minimumTLSVersion {
            try check(CCurl_easy_setopt_long(easy, CURLOPT_SSLVERSION, version.curlValue))
        }
        if let certificate = request.clientCertificate ?? configuration.clientCertificate {
            try check(CCurl_easy_setopt_string(easy, CURLOPT_SSLCERT, certificate.certificatePath))
            try check(CCurl_easy_setopt_string(easy, CURLOPT_SSLCERTTYPE, certificate.format.rawValue))
            if let key = certificate.keyPath { try check(CCurl_easy_setopt_string(easy, CURLOPT_SSLKEY, key)) }
            if let password = certificate.keyPassword { try check(CCurl_easy_setopt_string(easy, CURLOPT_KEYPASSWD, password)) }
        }
        // Under TLS 1.3 a server refusing the client's certificate (or its
        // absence) sends its alert after the client's handshake is done;
        // over HTTP/2 curl's first write then usually meets the closed
        // socket ("Broken pipe", `CURLE_HTTP2`) before any read sees the
        // alert. Whether the server asked for a certificate comes from the
        // handshake itself (OpenSSL's certificate callback).
        guard request.url.scheme?.lowercased() == "https" else { return }
        certificateRequestToken = ClientCertificateRequests.install(on: easy)
    }

    /// Whether this request goes through the configured proxy (not one
    /// from the environment): its host is not on the no-proxy list.
    var usesConfiguredProxy: Bool {
        guard configuration.proxy != nil else { return false }
        let host = (request.url.host ?? "").lowercased()
        return !(configuration.noProxy ?? []).contains { entry in
            var entry = entry.trimmingCharacters(in: .whitespaces).lowercased()
            if entry == "*" { return true }
            if entry.hasPrefix(".") { entry.removeFirst() }
            return !entry.isEmpty && (host == entry || host.hasSuffix("." + entry))
        }
    }

    /// The proxy options.
    func configureProxy(_ easy: UnsafeMutableRawPointer) throws {
        if let proxy = configuration.proxy { try check(CCurl_easy_setopt_string(easy, CURLOPT_PROXY, proxy)) }
        if let noProxy = configuration.noProxy {
            try check(CCurl_easy_setopt_string(easy, CURLOPT_NOPROXY, noProxy.joined(separator: ",")))
        }
        if let user = configuration.proxyUser { try check(CCurl_easy_setopt_string(easy, CURLOPT_PROXYUSERNAME, user)) }
        if let password = configuration.proxyPassword {
            try check(CCurl_easy_setopt_string(easy, CURLOPT_PROXYPASSWORD, password))
        }
    }

    /// The request's credential: basic, digest or bearer.
    func configureCredential(_ easy: UnsafeMutableRawPointer) throws {
        guard let credential = request.credential else { return }
        switch credential {
        case .basic(let user, let password), .digest(let user, let password):
            let digest = if case .digest = credential { true } else { false }
            try check(CCurl_easy_setopt_long(easy, CURLOPT_HTTPAUTH, digest ? CCurl_auth_digest : CCurl_auth_basic))
            try check(CCurl_easy_setopt_string(easy, CURLOPT_USERNAME, user))
            try check(CCurl_easy_setopt_string(easy, CURLOPT_PASSWORD, password))
        case .bearer(let token):
            try check(CCurl_easy_setopt_long(easy, CURLOPT_HTTPAUTH, CCurl_auth_bearer))
            try check(CCurl_easy_setopt_string(easy, CURLOPT_XOAUTH2_BEARER, token))
        }
    }

    /// The per-request options: relaxed TLS, the cookie engine, and the
    /// header fields.
    func configureRequest(_ easy: UnsafeMutableRawPointer, cookieShare: UnsafeMutableRawPointer?) throws {
        if request.allowInvalidSSLCertificates {
            try check(CCurl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 0))
            try check(CCurl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 0))
        }
        if request.handleCookies {
            try check(CCurl_easy_setopt_string(easy, CURLOPT_COOKIEFILE, ""))
            if let cookieShare { try check(CCurl_easy_setopt_ptr(easy, CURLOPT_SHARE, cookieShare)) }
        }
        // The defaults a request does not name, then the request's fields in
        // their order: every value of a repeated name is its own line, and
        // names keep the spelling they were given. HTTPField holds no CR, LF
        // or NUL, so no line can carry a second field.
        var fields = configuration.defaultHeaders
        fields.removeAll { request.headers.contains($0.name) }
        fields.append(contentsOf: request.headers)
        for field in fields {
            // "Name;" is curl's spelling of a field with an empty value.
            let line = field.value.isEmpty ? "\(field.name.rawName);" : "\(field.name.rawName): \(field.value)"
            headerList = curl_slist_append(headerList, line)
        }
        try check(CCurl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList))
    }
}
