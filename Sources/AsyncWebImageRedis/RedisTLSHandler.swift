import COpenSSL
import NIOCore

/// TLS for one Redis connection: OpenSSL over memory BIOs, as a NIO
/// channel handler between the socket and the RESP handlers.
///
/// Why the system's OpenSSL rather than swift-nio-ssl: the core already
/// links it (curl's TLS backend, `COpenSSL`), so Debian's security updates
/// reach this TLS too; it checks the server's name strictly (`SSL_set1_host`:
/// a certificate for another name fails even when it also lists the IP
/// address connected to, which swift-nio-ssl accepts); and swift-nio-ssl
/// vendors BoringSSL, about 500 C files that every build configuration of
/// the package (debug, release, ThreadSanitizer, AddressSanitizer, the
/// server's) would compile again — several minutes each on 2 cores.
///
/// Ciphertext from the network is written into the read BIO; OpenSSL turns
/// it into plaintext (`SSL_read`) or handshake messages, which it puts in
/// the write BIO, drained to the network after each step. Plaintext written
/// before the handshake completes waits for it. Every failure (a
/// certificate refused, an alert, a close during the handshake) is fired as
/// ``RedisFailure/tls(_:)`` and closes the channel.
final class RedisTLSHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum State {
        case idle
        case handshaking
        case active
        case failed
    }

    private var state = State.idle
    private let ssl: OpaquePointer
    /// Network → OpenSSL.
    private let readBIO: OpaquePointer
    /// OpenSSL → network.
    private let writeBIO: OpaquePointer
    /// Kept alive while `ssl` uses it.
    private let tlsContext: RedisTLSContext
    /// Plaintext written before the handshake completed.
    private var waiting: [(ByteBuffer, EventLoopPromise<Void>?)] = []

    /// - Parameters:
    ///   - serverName: A DNS name: sent as SNI and required in the
    ///     server's certificate. `nil` with `ipAddress` for an IP endpoint.
    ///   - ipAddress: The IP address the certificate must list, when no name is checked.
    init(context tlsContext: RedisTLSContext, serverName: String?, ipAddress: String?) throws(RedisFailure) {
        ERR_clear_error()
        guard let ssl = SSL_new(tlsContext.pointer), let readBIO = BIO_new(BIO_s_mem()), let writeBIO = BIO_new(BIO_s_mem()) else {
            throw .tls("cannot make a TLS session: " + RedisTLSContext.lastError())
        }
        self.ssl = ssl
        self.readBIO = readBIO
        self.writeBIO = writeBIO
        self.tlsContext = tlsContext
        // The SSL owns both BIOs from here (SSL_free frees them).
        SSL_set_bio(ssl, readBIO, writeBIO)
        SSL_set_connect_state(ssl)
        if let serverName {
            guard COpenSSL_set_tlsext_host_name(ssl, serverName) == 1, SSL_set1_host(ssl, serverName) == 1 else {
                throw .tls("cannot check the server name \(serverName): " + RedisTLSContext.lastError())
            }
        } else if let ipAddress {
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), ipAddress) == 1 else {
                throw .tls("cannot check the server address \(ipAddress): " + RedisTLSContext.lastError())
            }
        }
    }

    deinit {
        SSL_free(ssl)
    }

    // MARK: Handshake

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { startHandshake(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        startHandshake(context: context)
        context.fireChannelActive()
    }

    private func startHandshake(context: ChannelHandlerContext) {
        guard state == .idle else { return }
        state = .handshaking
        advanceHandshake(context: context)
    }

    /// One step of the handshake; on completion, the waiting plaintext goes out.
    private func advanceHandshake(context: ChannelHandlerContext) {
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            state = .active
            flushNetwork(context: context, promise: nil)
            let queued = waiting
            waiting.removeAll()
            for (plaintext, promise) in queued { write(plaintext, promise: promise, context: context) }
            context.flush()
            return
        }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            flushNetwork(context: context, promise: nil)
        default:
            fail(context: context, reason: handshakeFailure())
        }
    }

    /// Why the handshake failed: the certificate check's verdict when it failed, else OpenSSL's errors.
    private func handshakeFailure() -> String {
        let verdict = SSL_get_verify_result(ssl)
        if verdict != X509_V_OK {
            return "certificate verification failed: " + String(cString: X509_verify_cert_error_string(verdict))
        }
        return "handshake failed: " + RedisTLSContext.lastError()
    }

    // MARK: Reading

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var ciphertext = unwrapInboundIn(data)
        guard state != .failed else { return }
        let written = ciphertext.withUnsafeReadableBytes { BIO_write(readBIO, $0.baseAddress, Int32($0.count)) }
        guard Int(written) == ciphertext.readableBytes else {
            fail(context: context, reason: "cannot buffer \(ciphertext.readableBytes) bytes of ciphertext")
            return
        }
        ciphertext.moveReaderIndex(forwardBy: Int(written))
        if state == .handshaking { advanceHandshake(context: context) }
        if state == .active { readPlaintext(context: context) }
    }

    /// Hands every whole record received so far up the pipeline, as plaintext.
    private func readPlaintext(context: ChannelHandlerContext) {
        // Bounded by the ciphertext buffered: each pass consumes a record or stops.
        while state == .active {
            var buffer = context.channel.allocator.buffer(capacity: 16 << 10)
            ERR_clear_error()
            var result: Int32 = 0
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 16 << 10) { bytes in
                result = SSL_read(ssl, bytes.baseAddress, Int32(bytes.count))
                return Int(max(0, result))
            }
            if result > 0 {
                context.fireChannelRead(wrapInboundOut(buffer))
                continue
            }
            switch SSL_get_error(ssl, result) {
            case SSL_ERROR_WANT_READ:
                // A post-handshake message (a session ticket) may want an answer.
                flushNetwork(context: context, promise: nil)
                return
            case SSL_ERROR_ZERO_RETURN:
                // The server closed the TLS session (close_notify).
                context.close(promise: nil)
                return
            default:
                fail(context: context, reason: "read failed: " + RedisTLSContext.lastError())
                return
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if state == .handshaking {
            state = .failed
            context.fireErrorCaught(RedisFailure.tls("the server closed the connection during the TLS handshake"))
        }
        failWaiting(RedisFailure.link("connection closed"))
        context.fireChannelInactive()
    }

    // MARK: Writing

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let plaintext = unwrapOutboundIn(data)
        switch state {
        case .idle, .handshaking: waiting.append((plaintext, promise))
        case .active: write(plaintext, promise: promise, context: context)
        case .failed: promise?.fail(RedisFailure.tls("the TLS session failed"))
        }
    }

    func flush(context: ChannelHandlerContext) {
        if state == .active { context.flush() }
    }

    /// Encrypts `plaintext` and queues its records (a memory BIO takes it all at once).
    private func write(_ plaintext: ByteBuffer, promise: EventLoopPromise<Void>?, context: ChannelHandlerContext) {
        ERR_clear_error()
        let written = plaintext.withUnsafeReadableBytes { bytes in
            bytes.isEmpty ? 0 : SSL_write(ssl, bytes.baseAddress, Int32(bytes.count))
        }
        guard Int(written) == plaintext.readableBytes else {
            promise?.fail(RedisFailure.tls("write failed"))
            fail(context: context, reason: "write failed: " + RedisTLSContext.lastError())
            return
        }
        drainWriteBIO(context: context, promise: promise, flush: false)
    }

    /// Sends what OpenSSL wrote to the write BIO, and flushes.
    private func flushNetwork(context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        drainWriteBIO(context: context, promise: promise, flush: true)
    }

    private func drainWriteBIO(context: ChannelHandlerContext, promise: EventLoopPromise<Void>?, flush: Bool) {
        let pending = Int(BIO_ctrl_pending(writeBIO))
        guard pending > 0 else {
            promise?.succeed()
            return
        }
        var buffer = context.channel.allocator.buffer(capacity: pending)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: pending) { bytes in
            Int(max(0, BIO_read(writeBIO, bytes.baseAddress, Int32(pending))))
        }
        if flush {
            context.writeAndFlush(wrapOutboundOut(buffer), promise: promise)
        } else {
            context.write(wrapOutboundOut(buffer), promise: promise)
        }
    }

    // MARK: Failure

    private func fail(context: ChannelHandlerContext, reason: String) {
        guard state != .failed else { return }
        state = .failed
        let failure = RedisFailure.tls(reason)
        failWaiting(failure)
        context.fireErrorCaught(failure)
        context.close(promise: nil)
    }

    private func failWaiting(_ failure: RedisFailure) {
        let queued = waiting
        waiting.removeAll()
        for (_, promise) in queued { promise?.fail(failure) }
    }
}
