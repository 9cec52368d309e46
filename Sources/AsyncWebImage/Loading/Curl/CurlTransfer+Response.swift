import CCurl
import Foundation
import Synchronization
import AWILocking
import HTTPTypes

/// curl's callbacks on the loop thread, for the response: its header lines
/// (and the head they make), each request curl is about to send, and the
/// body's bytes with the size limit and back-pressure.
extension CurlTransfer {
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
    /// the drop is a `connectionLost` failure, which ``DataRequest/RetryPolicy`` retries
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
    func deliverHead() -> Bool {
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
    func timings() -> HTTPResponseHead.Timings? {
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
}
