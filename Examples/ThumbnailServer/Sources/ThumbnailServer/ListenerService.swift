import Foundation
import NIOCore
import ServiceLifecycle

/// A Hummingbird application as a service whose failure to bind says which
/// listener, address and port: NIO's own error names neither
/// (`bind(descriptor:ptr:bytes:): Address already in use (errno: 98)`).
struct ListenerService<Wrapped: Service>: Service {
    let wrapped: Wrapped
    /// `public` or `operator`.
    let role: String
    let host: String
    let port: Int

    func run() async throws {
        do {
            try await wrapped.run()
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw ListenError(role: role, host: host, port: port, reason: "address already in use")
        } catch let error as IOError where error.errnoCode == EACCES || error.errnoCode == EADDRNOTAVAIL {
            throw ListenError(role: role, host: host, port: port, reason: String(cString: strerror(error.errnoCode)).lowercased())
        }
    }
}
