import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Ports on 127.0.0.1 for the servers the tests start (tinyproxy, nghttpd)
/// and a socket that accepts nothing (a hanging peer).
public enum LoopbackPort {
    /// A port the kernel has just given out on 127.0.0.1 and taken back.
    public static func freePort() throws -> Int {
        let (fd, port) = try listeningSocket()
        close(fd)
        return port
    }

    /// A socket listening on 127.0.0.1 that never accepts: connections
    /// complete (the kernel's backlog takes them) and then nothing answers,
    /// like a node that hangs. The caller closes `fd`.
    public static func listeningSocket() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
