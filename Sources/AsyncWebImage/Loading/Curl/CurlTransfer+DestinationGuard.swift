import CCurl
import Foundation

/// The destination guard where curl opens its sockets (loop thread).
extension CurlTransfer {
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
}
