import CCurl
import Foundation
import HTTPTypes
import Synchronization
import AWILocking

/// One request as the loop thread runs it: the easy handle, curl's
/// callbacks, and the stream they feed.
///
/// `@unchecked Sendable` because it is created on the submitting thread and
/// handed to the loop thread through the inbox lock (`CurlMultiLoop.inbox`,
/// whose release and acquire order the two), after which every `var` is
/// touched only by the loop thread: in its own code and in curl's callbacks,
/// which curl runs inside `curl_multi_perform`/`curl_easy_pause` on that
/// thread. What the consumer shares with the loop (flow control) lives in
/// `flow`, a `Lock`; the continuation is `Sendable`.
final class CurlTransfer: @unchecked Sendable {
    let id: UInt64
    let request: DataRequest
    private let continuation: AsyncThrowingStream<DataTransfer.Event, any Error>.Continuation
    private let configuration: CurlDataLoader.Configuration

    private struct Flow {
        /// Bytes yielded and not yet taken by the consumer.
        var buffered = 0
        /// Whether the write callback paused the transfer for back-pressure.
        var paused = false
    }
    private let flow = Lock(Flow())
    /// The head of a response whose status (400 or more) failed the
    /// transfer, for a retry's `Retry-After`; read by the consumer.
    let failedHead = Lock<HTTPResponseHead?>(nil)
    /// The timings of the completed transfer, total included; set by the
    /// loop thread before the stream ends, read by the consumer.
    let completedTimings = Lock<HTTPResponseHead.Timings?>(nil)

    private(set) var easy: UnsafeMutableRawPointer?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var statusCode: Int?
    private var headerFields = HTTPFields()
    /// The most header fields one response may carry (real ones carry tens).
    static let maxResponseFields = 2_000
    private var headDelivered = false
    /// Whether curl decodes the body (a `Content-Encoding` other than identity).
    private var bodyEncoded = false
    private var received: Int64 = 0
    /// Set when a callback stops the transfer on purpose; wins over curl's code.
    private var abortError: ImageError?
    private var finished = false
    /// When bytes last arrived (or the transfer started, or resumed from a pause).
    private var lastActivity = ContinuousClock.now
    /// This HTTPS transfer's entry in ``ClientCertificateRequests``, which
    /// says whether a server's TLS handshake asked for a client certificate:
    /// then a connection it drops before the response is its refusal of the
    /// certificate, or of its absence.
    private var certificateRequestToken: UInt64?
    /// Whether a digest challenge (`401`) was let through for curl to answer.
    private var answeredChallenge = false
    /// Requests curl has sent for this transfer (redirects and a digest
    /// challenge's answer are requests of their own), and whether any
    /// response line arrived since the last one: see ``willSendRequest()``.
    private var requestsSent = 0
    private var responseSinceLastRequest = false

    init(
        id: UInt64,
        request: DataRequest,
        continuation: AsyncThrowingStream<DataTransfer.Event, any Error>.Continuation,
        configuration: CurlDataLoader.Configuration
    ) {
        self.id = id
        self.request = request
        self.continuation = continuation
        self.configuration = configuration
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit {
        // The loop thread always releases the easy handle before it lets go.
        errorBuffer.deallocate()
    }

    /// The request's host and port: what the per-host limit counts.
    var hostKey: String {
        let url = request.url
        return "\(url.host?.lowercased() ?? ""):\(url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80))"
    }

    // MARK: Easy handle

    /// The one check of a libcurl option call: a refused option fails the
    /// transfer with the ``ImageError`` curl's code maps to.
    private func check(_ code: CURLcode) throws {
        guard code == CURLE_OK else { throw ImageError(curlCode: code, detail: "", url: request.url.absoluteString) }
    }

    /// Creates and configures the easy handle.
    /// - Throws: ``ImageError`` when curl refuses an option (e.g. an unknown scheme).
    func makeEasyHandle(cookieShare: UnsafeMutableRawPointer?) throws -> UnsafeMutableRawPointer {
        guard let easy = curl_easy_init() else {
            throw ImageError.network(.init(kind: .other, code: 0, message: "curl_easy_init failed"))
        }
        self.easy = easy
        let url = request.url.absoluteString
        let this = Unmanaged.passUnretained(self).toOpaque()
        try check(CCurl_easy_setopt_string(easy, CURLOPT_URL, url))
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

        // Schemes, for the first URL and for every redirect target.
        let schemes = configuration.allowedSchemes.map { $0.lowercased() }.sorted().joined(separator: ",")
        try check(CCurl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, schemes))
        try check(CCurl_easy_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, schemes))
        try check(CCurl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, request.followRedirects ? 1 : 0))
        try check(CCurl_easy_setopt_long(easy, CURLOPT_MAXREDIRS, configuration.maxRedirects))

        // Time: curl bounds connecting; the loop thread bounds a stall (see
        // `stalled(at:)`), because curl's low-speed check averages over
        // several seconds and would fire seconds late after a burst.
        let milliseconds = max(1, configuration.timeout.components.seconds * 1000
            + configuration.timeout.components.attoseconds / 1_000_000_000_000_000)
        try check(CCurl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Int(milliseconds)))
        // The stall check cannot catch a trickle (a byte a second is never
        // a stall): curl's own total timeout bounds the whole transfer.
        if let total = configuration.transferTimeout {
            let totalMilliseconds = max(1, total.components.seconds * 1000
                + total.components.attoseconds / 1_000_000_000_000_000)
            try check(CCurl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, Int(totalMilliseconds)))
        }
        lastActivity = .now

        // Protocol.
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
        if let speed = configuration.maxReceiveBytesPerSecond {
            try check(CCurl_easy_setopt_off(easy, CURLOPT_MAX_RECV_SPEED_LARGE, curl_off_t(max(1, speed))))
        }
        if configuration.acceptsCompressedResponses {
            try check(CCurl_easy_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, ""))
        }
        // A proxy's CONNECT answer must not be taken for the response head.
        try check(CCurl_easy_setopt_long(easy, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1))

        try configureTLS(easy)
        try configureProxy(easy)
        if let credential = request.credential {
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

        // Per-request options.
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
        return easy
    }

    /// The TLS options: trust store, client certificate, pin, version, and
    /// the handshake observer that tells a refused client certificate apart
    /// from a dropped connection.
    private func configureTLS(_ easy: UnsafeMutableRawPointer) throws {
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
    private var usesConfiguredProxy: Bool {
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
    private func configureProxy(_ easy: UnsafeMutableRawPointer) throws {
        if let proxy = configuration.proxy { try check(CCurl_easy_setopt_string(easy, CURLOPT_PROXY, proxy)) }
        if let noProxy = configuration.noProxy {
            try check(CCurl_easy_setopt_string(easy, CURLOPT_NOPROXY, noProxy.joined(separator: ",")))
        }
        if let user = configuration.proxyUser { try check(CCurl_easy_setopt_string(easy, CURLOPT_PROXYUSERNAME, user)) }
        if let password = configuration.proxyPassword {
            try check(CCurl_easy_setopt_string(easy, CURLOPT_PROXYPASSWORD, password))
        }
    }

    /// Frees the easy handle and the header list (the loop thread has
    /// removed the handle from the multi handle first).
    func releaseEasyHandle() {
        if let easy { curl_easy_cleanup(easy) }
        easy = nil
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
        if let certificateRequestToken { ClientCertificateRequests.unregister(certificateRequestToken) }
        certificateRequestToken = nil
    }

    // MARK: Callbacks (loop thread)

    /// curl's header callback: collects the fields of the final response
    /// and delivers the head at the blank line that ends it.
    func receiveHeader(_ bytes: UnsafeRawBufferPointer) -> Int {
        let count = bytes.count
        lastActivity = .now
        responseSinceLastRequest = true
        guard !headDelivered else { return count } // trailers of a chunked body
        var line = Substring(String(decoding: bytes, as: UTF8.self))
        while let last = line.last, last.isNewline { line.removeLast() }
        if line.hasPrefix("HTTP/") {
            // A new response (the first, an interim 1xx, or after a redirect).
            let parts = line.split(separator: " ", maxSplits: 2)
            statusCode = parts.count > 1 ? Int(parts[1]) : nil
            headerFields = HTTPFields()
            return count
        }
        if line.isEmpty {
            let status = statusCode ?? 200
            if (100..<200).contains(status) { return count }
            if request.followRedirects, (300..<400).contains(status), status != 304,
               headerFields.contains(.location) {
                return count // curl follows it; the next response is the one
            }
            if status == 401, case .digest = request.credential, !answeredChallenge, headerFields.contains(.wwwAuthenticate) {
                // Digest starts with the server's challenge: curl answers it
                // with a second request, whose response is the one.
                answeredChallenge = true
                return count
            }
            return deliverHead() ? count : 0
        }
        guard let colon = line.firstIndex(of: ":"), line.first != " ", line.first != "\t" else { return count }
        // A name that is not a token is not HTTP: the field is dropped, as
        // curl itself would not have sent it.
        guard let name = HTTPField.Name(String(line[..<colon])) else { return count }
        var value = line[line.index(after: colon)...]
        while let first = value.first, first == " " || first == "\t" { value.removeFirst() }
        while let last = value.last, last == " " || last == "\t" { value.removeLast() }
        // Every field is kept, in order: a repeated name (two Set-Cookie,
        // Vary over two lines) is appended, never merged or overwritten.
        // A bounded count: HTTPFields traps past 65,535, and curl 7.x puts no
        // limit on a response's number of fields.
        guard headerFields.count < Self.maxResponseFields else {
            abortError = .network(.init(
                kind: .protocolError, code: 0,
                message: "the response has more than \(Self.maxResponseFields) header fields"
            ))
            return 0
        }
        headerFields.append(HTTPField(name: name, value: String(value)))
        return count
    }

    /// curl's pre-request callback (loop thread), run each time curl is about
    /// to send a request for this transfer; false aborts the transfer.
    ///
    /// A request sent again with no response line since the last one is
    /// curl's own retry: when a reused connection closes before any byte of
    /// the response, curl sends the request again, up to five times, each
    /// time on whichever pooled connection to the origin it finds next. So an
    /// origin that drops a connection mid-response saw the same GET two to
    /// six times for one load (three in the cache-tests run, whose pool held
    /// two more idle connections), and an origin that drops connections
    /// because it is overloaded got the load multiplied. RFC 9110 §9.2.2
    /// allows at most one automatic retry; this loader makes none of its own:
    /// the drop is a `connectionLost` failure, which ``RetryPolicy`` retries
    /// (with backoff) when the application asks for retries, and which a
    /// stale cached response may stand in for (RFC 9111 §4.2.4). Redirects and
    /// a digest challenge's answer follow a response, so they go on.
    func willSendRequest() -> Bool {
        defer {
            requestsSent += 1
            responseSinceLastRequest = false
        }
        guard requestsSent > 0, !responseSinceLastRequest else { return true }
        abortError = .network(.init(
            kind: .connectionLost, code: Int(CURLE_GOT_NOTHING.rawValue),
            message: "the connection closed before any response; the request was not sent again"
        ))
        return false
    }

    /// curl's open-socket callback (loop thread): opens the socket only if
    /// the destination guard permits the address, else records why and
    /// makes curl fail the connection.
    func openSocket(_ address: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
        let family = address.pointee.family
        // `addr` is declared as a 16-byte sockaddr but curl allocates
        // `addrlen` bytes for it, enough for a sockaddr_in6.
        let raw = UnsafeRawPointer(address) + (MemoryLayout<curl_sockaddr>.offset(of: \.addr) ?? 0)
        let length = Int(address.pointee.addrlen)
        var peer: CurlDataLoader.DestinationGuard.IPAddress?
        if family == AF_INET, length >= MemoryLayout<sockaddr_in>.size {
            let ipv4 = raw.loadUnaligned(as: sockaddr_in.self)
            peer = .v4(UInt32(bigEndian: ipv4.sin_addr.s_addr))
        } else if family == AF_INET6, length >= MemoryLayout<sockaddr_in6>.size {
            var ipv6 = raw.loadUnaligned(as: sockaddr_in6.self)
            peer = .v6(withUnsafeBytes(of: &ipv6.sin6_addr) { Array($0) })
        }
        if let guardian = configuration.destinationGuard {
            guard let peer, guardian.permits(peer) else {
                abortError = .destinationNotAllowed(peer?.description ?? "address family \(family)")
                return CURL_SOCKET_BAD
            }
        }
        return socket(family, address.pointee.socktype, address.pointee.protocol)
    }

    /// curl's write callback: enforces the size limit and back-pressure,
    /// then yields the bytes.
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        if !headDelivered, !deliverHead() { return 0 }
        guard abortError == nil else { return 0 }
        let count = bytes.count
        if received + Int64(count) > configuration.maxResponseBytes {
            abortError = .tooLarge(.bytes, limit: configuration.maxResponseBytes, actual: nil)
            return 0
        }
        // A decoded body is never paused. curl answers a pause by keeping the
        // rest of what it decodes from the bytes already read (up to 64 MiB,
        // then "Out of memory"), out of this callback's sight: a bomb's
        // expansion would pile up there uncounted. Unpaused, every decoded
        // byte passes the byte limit above, so what waits for the consumer
        // stays within `maxResponseBytes`.
        let maxBuffered = bodyEncoded ? Int.max : configuration.maxBufferedBytes
        let pause = flow.withLock { flow in
            guard flow.buffered < maxBuffered else {
                flow.paused = true
                return true
            }
            flow.buffered += count
            return false
        }
        // curl keeps the bytes and offers them again after curl_easy_pause(CONT).
        if pause { return Int(CURL_WRITEFUNC_PAUSE) }
        lastActivity = .now
        received += Int64(count)
        continuation.yield(.chunk(Data(bytes)))
        return count
    }

    /// Yields the head of the final response; false (with `abortError` set)
    /// when its status or announced length ends the transfer.
    private func deliverHead() -> Bool {
        headDelivered = true
        let status = statusCode ?? 200
        if status >= 400 {
            let head = HTTPResponseHead(statusCode: status, headers: headerFields, expectedContentLength: nil, url: request.url)
            failedHead.withLock { $0 = head }
            abortError = status == 407 && usesConfiguredProxy
                ? .network(.init(kind: .proxy, code: 0, message: "the proxy refused the request: 407 Proxy Authentication Required"))
                : .httpStatus(status)
            return false
        }
        let encoded = headerFields[.contentEncoding].map { $0.lowercased() != "identity" } ?? false
        bodyEncoded = encoded && configuration.acceptsCompressedResponses
        var length = headerFields[.contentLength].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
        if length == nil, statusCode == nil, let easy {
            // Schemes without headers (file, ftp): curl knows the size.
            var size: curl_off_t = -1
            CCurl_easy_getinfo_off(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &size)
            if size >= 0 { length = Int64(size) }
        }
        if let length, length > configuration.maxResponseBytes {
            abortError = .tooLarge(.bytes, limit: configuration.maxResponseBytes, actual: length)
            return false
        }
        var url = request.url
        var redirects = 0
        if let easy, CCurl_easy_getinfo_long(easy, CURLINFO_REDIRECT_COUNT, &redirects) == CURLE_OK, redirects > 0 {
            // Only after a redirect is the answering URL another one worth parsing.
            var pointer: UnsafeMutablePointer<CChar>?
            CCurl_easy_getinfo_string(easy, CURLINFO_EFFECTIVE_URL, &pointer)
            if let pointer, let effective = URL(string: String(cString: pointer)) { url = effective }
        }
        var head = HTTPResponseHead(
            statusCode: status, headers: headerFields, expectedContentLength: encoded ? nil : length, url: url
        )
        head.timings = timings()
        continuation.yield(.head(head))
        return true
    }

    /// curl's timings so far, HTTP version and connection reuse.
    private func timings() -> HTTPResponseHead.Timings? {
        guard let easy else { return nil }
        func time(_ info: CURLINFO) -> Duration {
            var microseconds: curl_off_t = 0
            CCurl_easy_getinfo_off(easy, info, &microseconds)
            return .microseconds(Int64(microseconds))
        }
        var version = 0
        CCurl_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
        var connects = 0
        CCurl_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects)
        let versions: [Int: String] = [
            Int(CURL_HTTP_VERSION_1_0): "1.0", Int(CURL_HTTP_VERSION_1_1): "1.1",
            Int(CURL_HTTP_VERSION_2_0): "2", Int(CURL_HTTP_VERSION_3): "3",
        ]
        return HTTPResponseHead.Timings(
            nameLookup: time(CURLINFO_NAMELOOKUP_TIME_T), connect: time(CURLINFO_CONNECT_TIME_T),
            tlsHandshake: time(CURLINFO_APPCONNECT_TIME_T), firstByte: time(CURLINFO_STARTTRANSFER_TIME_T),
            httpVersion: versions[version], reusedConnection: connects == 0
        )
    }

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
    private func refined(_ error: ImageError, code: CURLcode) -> ImageError {
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

    /// Ends the stream (once).
    func finish(throwing error: (any Error)?) {
        guard !finished else { return }
        finished = true
        continuation.finish(throwing: error)
    }

    // MARK: Flow control (consumer's thread)

    /// Records that the consumer took `count` bytes; true when the transfer
    /// was paused and should resume now.
    func consumed(_ count: Int) -> Bool {
        let lowWater = configuration.maxBufferedBytes / 2
        return flow.withLock { flow in
            flow.buffered -= count
            guard flow.paused, flow.buffered <= lowWater else { return false }
            flow.paused = false
            return true
        }
    }
}
