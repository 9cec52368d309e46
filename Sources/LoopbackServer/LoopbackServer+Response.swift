public import Foundation

extension LoopbackServer {
    /// What the server does for one request: a status, headers, a body, and
    /// the way (or the fault) with which it is sent.
    public struct Response: Sendable {
        /// How the end of the body is signalled to the client.
        public enum Framing: Sendable, Hashable {
            /// `Content-Length` equal to the body's size (the default).
            case contentLength
            /// `Transfer-Encoding: chunked`; every trickled piece is one chunk.
            case chunked
            /// No length at all: the body ends when the server closes the connection.
            case closeDelimited
            /// A `Content-Length` that lies: larger or smaller than the body.
            /// The connection is closed after the body.
            case declaredLength(Int)
        }

        /// A deliberate misbehaviour of the server.
        public enum Fault: Sendable, Hashable {
            /// Accept the request and send nothing until the client leaves.
            case stallBeforeHead
            /// Send the head and this many body bytes, then nothing until the client leaves.
            case stallAfter(bytes: Int)
            /// Send the head and this many body bytes, then reset the connection
            /// (`SO_LINGER` 0, so the client sees `ECONNRESET`, not a clean close).
            case resetAfter(bytes: Int)
            /// Send these bytes instead of an HTTP response (an SSH banner, a
            /// bad status line, junk after a `100`), then close the connection.
            case raw(Data)
        }

        /// Sending the body in pieces with a pause between them.
        public struct Trickle: Sendable, Hashable {
            /// Bytes per piece (at least 1).
            public var bytesPerPiece: Int
            /// Pause after every piece but the last.
            public var interval: Duration

            /// Creates a trickle of `bytesPerPiece` bytes every `interval`.
            public init(bytesPerPiece: Int, interval: Duration) {
                self.bytesPerPiece = max(1, bytesPerPiece)
                self.interval = interval
            }
        }

        /// Stopping the body after some bytes until the test lets it go on,
        /// so "a transfer under way" is a state the test holds, not a window
        /// it must hit.
        public struct Pause: Sendable {
            /// Body bytes sent before the pause (the rest follow it).
            public var afterBytes: Int
            /// Blocks the connection's thread until the body may go on.
            public var wait: @Sendable () -> Void

            /// Creates a pause after `afterBytes` body bytes that lasts until `wait` returns.
            public init(afterBytes: Int, until wait: @escaping @Sendable () -> Void) {
                self.afterBytes = afterBytes
                self.wait = wait
            }
        }

        /// The HTTP status code; 200 by default.
        public var status: Int
        /// Extra header fields, in order (framing fields are added by the server).
        public var headers: [(name: String, value: String)]
        /// The body bytes.
        public var body: Data
        /// How the body's end is signalled; `Content-Length` by default.
        public var framing: Framing
        /// How long to wait after reading the request before sending the head.
        public var delayBeforeHead: Duration
        /// Send the body in timed pieces instead of all at once.
        public var trickle: Trickle?
        /// A fault to inject, if any.
        public var fault: Fault?
        /// A pause in the body, if any.
        public var pause: Pause?
        /// An entity tag: sent as `ETag`, and a request whose `If-None-Match`
        /// equals it is answered `304 Not Modified` with no body.
        public var etag: String?
        /// A `Last-Modified` value: sent as such, and a request without
        /// `If-None-Match` whose `If-Modified-Since` equals it is answered
        /// `304 Not Modified` with no body. `nil` by default.
        public var lastModified: String?

        /// Whether this response answers `request` with `304 Not Modified`
        /// (RFC 9110 §13.2.2: `If-None-Match` first, then `If-Modified-Since`).
        public func isNotModified(for request: Request) -> Bool {
            if let condition = request[header: "If-None-Match"] {
                return etag != nil && condition == etag
            }
            return lastModified != nil && request[header: "If-Modified-Since"] == lastModified
        }

        /// Creates a response; every parameter has the plain default.
        public init(
            status: Int = 200,
            headers: [(name: String, value: String)] = [],
            body: Data = Data(),
            framing: Framing = .contentLength,
            delayBeforeHead: Duration = .zero,
            trickle: Trickle? = nil,
            fault: Fault? = nil,
            pause: Pause? = nil,
            etag: String? = nil
        ) {
            self.status = status
            self.headers = headers
            self.body = body
            self.framing = framing
            self.delayBeforeHead = delayBeforeHead
            self.trickle = trickle
            self.fault = fault
            self.pause = pause
            self.etag = etag
        }

        /// A `200` with `body` and a `Content-Type`, and nothing about caching
        /// unless asked: as a plain file server, an app backend or a signed
        /// object-store URL answers, which is what users' loaders meet.
        /// - Parameters:
        ///   - body: The body bytes.
        ///   - contentType: The `Content-Type` value; `application/octet-stream` by default.
        ///   - cacheControl: A `Cache-Control` value to send; none by default.
        public static func ok(
            _ body: Data, contentType: String = "application/octet-stream", cacheControl: String? = nil
        ) -> Response {
            var headers = [(name: "Content-Type", value: contentType)]
            if let cacheControl { headers.append((name: "Cache-Control", value: cacheControl)) }
            return Response(headers: headers, body: body)
        }

        /// A response with `status` and a short text body.
        /// - Parameter status: The status code.
        public static func status(_ status: Int) -> Response {
            Response(status: status, headers: [("Content-Type", "text/plain")], body: Data("status \(status)\n".utf8))
        }

        /// A redirect to `location` (a path on this server or an absolute URL).
        /// - Parameters:
        ///   - location: The `Location` value.
        ///   - status: The redirect status; 302 by default.
        public static func redirect(to location: String, status: Int = 302) -> Response {
            Response(status: status, headers: [("Location", location)])
        }

        /// A response that never comes: the server waits until the client leaves.
        public static var stall: Response { Response(fault: .stallBeforeHead) }
    }
}
