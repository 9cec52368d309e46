import Foundation
import Synchronization
import AWILocking
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension LoopbackServer {
    /// How sending one response ended.
    enum Outcome {
        /// Sent to the end; the connection may serve another request.
        case completed(keepAlive: Bool)
        /// The client went away before the end.
        case clientLeft
        /// The server reset the connection on purpose.
        case closedByServer
    }

    /// Serves requests on one connection until either side closes it.
    func serve(_ fd: Int32) {
        var buffer: [UInt8] = []
        while isRunning {
            guard let request = readRequest(fd, &buffer) else { return }
            let handler = state.withLock { state -> Handler? in
                // Mutated in place: a copy would copy the growing arrays on every request.
                state.statistics[request.path, default: PathStatistics()].record(request)
                state.inFlight += 1
                state.maxInFlight = max(state.maxInFlight, state.inFlight)
                state.log.append(request.target)
                return state.routes[request.target] ?? state.routes[request.path]
            }
            let response = handler?(request) ?? .status(404)
            if response.isNotModified(for: request) {
                // Counted before it is sent: a client that has its answer
                // must find it counted.
                state.withLock { $0.statistics[request.path]?.notModifiedResponses += 1 }
            }
            let outcome = respond(fd, request, response)
            state.withLock { state in
                state.inFlight -= 1
                state.statistics[request.path]?.inFlight -= 1
                switch outcome {
                case .completed: state.statistics[request.path]?.completed += 1
                case .clientLeft: state.statistics[request.path]?.disconnects.append(.now)
                case .closedByServer: break
                }
            }
            guard case .completed(keepAlive: true) = outcome else { return }
        }
    }

    /// Reads one request head (and skips its body); nil when the client
    /// closed, the server stopped, or the head was malformed or over 64 KiB.
    func readRequest(_ fd: Int32, _ buffer: inout [UInt8]) -> Request? {
        let terminator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            if let range = find(terminator, in: buffer) {
                headEnd = range
                break
            }
            guard buffer.count < 65_536, receive(fd, into: &buffer) else { return nil }
        }
        guard let end = headEnd, let text = String(bytes: buffer[0..<end], encoding: .utf8) else { return nil }
        buffer.removeFirst(end + 4)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        guard !lines.isEmpty else { return nil }
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count == 3 else { return nil }
        var headers: [String: String] = [:]
        var fields: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
            fields.append((String(line[..<colon]), value))
        }
        // GET is what the tests send; a body, if any, is read and dropped.
        if let length = headers["content-length"].flatMap(Int.init), length > 0 {
            while buffer.count < length {
                guard receive(fd, into: &buffer) else { return nil }
            }
            buffer.removeFirst(length)
        }
        let target = String(requestLine[1])
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? target
        var request = Request(method: String(requestLine[0]), target: target, path: path, headers: headers)
        request.fields = fields
        return request
    }

    /// Appends what the socket has to `buffer`; false on close, error or stop.
    private func receive(_ fd: Int32, into buffer: inout [UInt8]) -> Bool {
        while isRunning {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 50)
            if ready < 0 && errno != EINTR { return false }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 16_384)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return false }
            buffer.append(contentsOf: chunk[0..<count])
            return true
        }
        return false
    }

    private func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<start + needle.count].elementsEqual(needle) { return start }
        }
        return nil
    }

    /// Sends `response` as its framing, trickle and fault say.
    func respond(_ fd: Int32, _ request: Request, _ response: Response) -> Outcome {
        if response.delayBeforeHead > .zero, !waitWhileClientStays(fd, for: response.delayBeforeHead) {
            return .clientLeft
        }
        if response.fault == .stallBeforeHead {
            _ = waitWhileClientStays(fd, for: nil)
            return .clientLeft
        }
        if case .raw(let bytes) = response.fault {
            return sendAll(fd, bytes) ? .closedByServer : .clientLeft
        }
        let notModified = response.isNotModified(for: request)
        let status = notModified ? 304 : response.status
        let body = notModified || request.method == "HEAD" ? Data() : response.body
        let wantsClose = request[header: "Connection"]?.lowercased() == "close"
        var head = "HTTP/1.1 \(status) \(reason(status))\r\n"
        for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
        if let etag = response.etag { head += "ETag: \(etag)\r\n" }
        if let lastModified = response.lastModified { head += "Last-Modified: \(lastModified)\r\n" }
        var closeAfter = wantsClose
        switch response.framing {
        case .contentLength: head += "Content-Length: \(body.count)\r\n"
        case .chunked: head += "Transfer-Encoding: chunked\r\n"
        case .closeDelimited: closeAfter = true
        case .declaredLength(let length):
            head += "Content-Length: \(length)\r\n"
            closeAfter = true
        }
        if notModified, response.framing != .contentLength { head += "Content-Length: 0\r\n" }
        head += closeAfter ? "Connection: close\r\n\r\n" : "Connection: keep-alive\r\n\r\n"
        let chunked = response.framing == .chunked && !notModified

        // Small untrickled bodies go out with the head in one write.
        if response.trickle == nil, response.fault == nil, response.pause == nil, !chunked, body.count <= 65_536 {
            var packet = Data(head.utf8)
            packet.append(body)
            recordSent(request.path, body.count)
            guard sendAll(fd, packet) else {
                recordSent(request.path, -body.count)
                return .clientLeft
            }
            return .completed(keepAlive: !closeAfter)
        }
        guard sendAll(fd, Data(head.utf8)) else { return .clientLeft }

        var limit = body.count
        switch response.fault {
        case .stallAfter(let bytes), .resetAfter(let bytes): limit = min(bytes, body.count)
        default: break
        }
        let piece = response.trickle?.bytesPerPiece ?? 262_144
        var pause = response.pause
        var offset = 0
        while offset < limit {
            var end = min(offset + piece, limit)
            if let pause, pause.afterBytes > offset { end = min(end, pause.afterBytes) }
            var packet = Data()
            if chunked { packet.append(Data((String(end - offset, radix: 16) + "\r\n").utf8)) }
            packet.append(body[(body.startIndex + offset)..<(body.startIndex + end)])
            if chunked { packet.append(Data("\r\n".utf8)) }
            recordSent(request.path, end - offset)
            guard sendAll(fd, packet) else {
                recordSent(request.path, offset - end)
                return .clientLeft
            }
            offset = end
            if let current = pause, offset >= current.afterBytes {
                pause = nil
                current.wait()
            }
            if offset < limit, let trickle = response.trickle,
               !waitWhileClientStays(fd, for: trickle.interval) {
                return .clientLeft
            }
        }
        switch response.fault {
        case .stallAfter:
            _ = waitWhileClientStays(fd, for: nil)
            return .clientLeft
        case .resetAfter:
            var reset = linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
            return .closedByServer
        default: break
        }
        if chunked, !sendAll(fd, Data("0\r\n\r\n".utf8)) { return .clientLeft }
        return .completed(keepAlive: !closeAfter)
    }

    /// Counts body bytes written for `path`: before each write (a client
    /// that has its bytes must find them counted; tests read the count as
    /// soon as a load returns), taken back when the write fails.
    private func recordSent(_ path: String, _ count: Int) {
        state.withLock { $0.statistics[path]?.bodyBytesSent += count }
    }

    /// Writes all of `data`; false when the client is gone or the server stopped.
    func sendAll(_ fd: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let count = send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
    }

    /// Waits `duration` (nil: until the client leaves or the server stops);
    /// false as soon as the client hangs up or the server stops.
    func waitWhileClientStays(_ fd: Int32, for duration: Duration?) -> Bool {
        let deadline = duration.map { ContinuousClock.now + $0 }
        while isRunning {
            var slice: Int32 = 20
            if let deadline {
                let left = deadline - .now
                guard left > .zero else { return true }
                slice = Int32(min(20, max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)))
            }
            var poller = pollfd(fd: fd, events: Int16(pollPeerHangUp), revents: 0)
            if poll(&poller, 1, slice) > 0,
               poller.revents & Int16(pollPeerHangUp | Int32(POLLHUP) | Int32(POLLERR)) != 0 {
                return false
            }
        }
        return false
    }

    private func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}

/// Linux's `POLLRDHUP` (the peer shut down its writing side), which Glibc's
/// Swift overlay does not export because it needs `_GNU_SOURCE`.
private let pollPeerHangUp: Int32 = 0x2000
