import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A blocking TCP client for checking the loopback server byte by byte.
/// Every read is bounded by a 5 s receive timeout.
final class RawConnection {
    struct ConnectError: Error {}

    private let fd: Int32
    private(set) var received = Data()
    /// Set when a read failed with `ECONNRESET`.
    private(set) var wasReset = false
    /// Set when the server closed its side.
    private(set) var sawEOF = false

    init(port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            Glibc.close(fd)
            throw ConnectError()
        }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        Glibc.close(fd)
    }

    func send(_ text: String) {
        _ = text.withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    }

    /// A GET for `target` (keep-alive), with extra header lines.
    func get(_ target: String, _ headers: [String] = []) {
        send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n")
    }

    /// Reads until `received` holds `count` bytes, the peer closes, or 5 s pass.
    @discardableResult
    func read(atLeast count: Int) -> Data {
        while received.count < count, readOnce() {}
        return received
    }

    /// Reads until the peer closes (or resets, or 5 s pass).
    @discardableResult
    func readToEnd() -> Data {
        while readOnce() {}
        return received
    }

    /// Reads until `received` contains one complete response with a
    /// `Content-Length` body; returns it and removes it from `received`.
    func readResponse() -> (head: String, body: Data)? {
        let separator = Data("\r\n\r\n".utf8)
        while received.range(of: separator) == nil, readOnce() {}
        guard let range = received.range(of: separator) else { return nil }
        let head = String(decoding: received[..<range.lowerBound], as: UTF8.self)
        let length = head.split(separator: "\r\n")
            .first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
        while received.count < range.upperBound + length, readOnce() {}
        let body = Data(received[range.upperBound..<min(received.count, range.upperBound + length)])
        received = Data(received[min(received.count, range.upperBound + length)...])
        return (head, body)
    }

    /// Closes the client's side at once.
    func shutdownBoth() {
        shutdown(fd, Int32(SHUT_RDWR))
    }

    private func readOnce() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            received.append(contentsOf: buffer[0..<count])
            return true
        }
        if count == 0 { sawEOF = true }
        if count < 0, errno == ECONNRESET { wasReset = true }
        return false
    }
}
