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
///
/// Its concerns are extensions of their own: the easy handle's options
/// (`CurlTransfer+Options.swift`), the response callbacks
/// (`+Response.swift`), the destination guard (`+DestinationGuard.swift`),
/// and how the transfer ends (`+Outcome.swift`).
final class CurlTransfer: @unchecked Sendable {
    let id: UInt64
    let request: DataRequest
    let continuation: AsyncThrowingStream<DataRequest.Transfer.Event, any Error>.Continuation
    let configuration: CurlDataLoader.Configuration

    struct Flow {
        /// Bytes yielded and not yet taken by the consumer.
        var buffered = 0
        /// Whether the write callback paused the transfer for back-pressure.
        var paused = false
    }
    let flow = Lock(Flow())
    /// The head of a response whose status (400 or more) failed the
    /// transfer, for a retry's `Retry-After`; read by the consumer.
    let failedHead = Lock<HTTPResponseHead?>(nil)
    /// The timings of the completed transfer, total included; set by the
    /// loop thread before the stream ends, read by the consumer.
    let completedTimings = Lock<HTTPResponseHead.Timings?>(nil)

    private(set) var easy: UnsafeMutableRawPointer?
    var headerList: UnsafeMutablePointer<curl_slist>?
    let errorBuffer: UnsafeMutablePointer<CChar>
    var statusCode: Int?
    var headerFields = HTTPFields()
    /// The most header fields one response may carry (real ones carry tens).
    static let maxResponseFields = 2_000
    var headDelivered = false
    /// Whether curl decodes the body (a `Content-Encoding` other than identity).
    var bodyEncoded = false
    var received: Int64 = 0
    /// Set when a callback stops the transfer on purpose; wins over curl's code.
    var abortError: ImageError?
    var finished = false
    /// When bytes last arrived (or the transfer started, or resumed from a pause).
    var lastActivity = ContinuousClock.now
    /// This HTTPS transfer's entry in ``ClientCertificateRequests``, which
    /// says whether a server's TLS handshake asked for a client certificate:
    /// then a connection it drops before the response is its refusal of the
    /// certificate, or of its absence.
    var certificateRequestToken: UInt64?
    /// Whether a digest challenge (`401`) was let through for curl to answer.
    var answeredChallenge = false
    /// Requests curl has sent for this transfer (redirects and a digest
    /// challenge's answer are requests of their own), and whether any
    /// response line arrived since the last one: see ``willSendRequest()``.
    var requestsSent = 0
    var responseSinceLastRequest = false

    init(
        id: UInt64,
        request: DataRequest,
        continuation: AsyncThrowingStream<DataRequest.Transfer.Event, any Error>.Continuation,
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
    func check(_ code: CURLcode) throws {
        guard code == CURLE_OK else { throw ImageError(curlCode: code, detail: "", url: request.url.absoluteString) }
    }

    /// Creates and configures the easy handle, option group by option
    /// group (`CurlTransfer+Options.swift`).
    /// - Throws: ``ImageError`` when curl refuses an option (e.g. an unknown scheme).
    func makeEasyHandle(cookieShare: UnsafeMutableRawPointer?) throws -> UnsafeMutableRawPointer {
        guard let easy = curl_easy_init() else {
            throw ImageError.network(.init(kind: .other, code: 0, message: "curl_easy_init failed"))
        }
        self.easy = easy
        try configureCallbacks(easy)
        try configureLimits(easy)
        try configureProtocol(easy)
        try configureTLS(easy)
        try configureProxy(easy)
        try configureCredential(easy)
        try configureRequest(easy, cookieShare: cookieShare)
        return easy
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
