import AsyncWebImage
import Foundation
import Hummingbird
import Logging
import NIOCore

/// `thumbnail-server`: a thumbnail proxy on Hummingbird 2 around one
/// ``ImageLoader``. See README.md beside this package.
///
/// It prints `listening on http://HOST:PORT` on standard output once the
/// socket is bound (with the real port when started with `--port 0`), and
/// shuts down gracefully on SIGTERM or SIGINT: in-flight requests finish,
/// then the process exits with status 0.
@main
struct ThumbnailServer {
    static func main() async {
        let options: ServerOptions
        do {
            options = try ServerOptions.parse(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
        } catch {
            if let message = error.message { FileHandle.standardError.write(Data("thumbnail-server: \(message)\n".utf8)) }
            print(ServerOptions.usage)
            exit(error.message == nil ? 0 : 2)
        }
        if options.allowedHosts.allowsEveryHost {
            FileHandle.standardError.write(Data(
                "thumbnail-server: no --allow-host given, every upstream host is allowed (the destination guard still refuses private addresses)\n".utf8))
        }

        let controller = ThumbnailController(
            renderer: ThumbnailRenderer(options: options),
            maxOutputDimension: options.maxOutputDimension,
            cacheControl: "public, max-age=\(options.maxAge)"
        )
        let router = Router()
        controller.addRoutes(to: router)

        var logger = Logger(label: "thumbnail-server")
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: "thumbnail-server"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? options.port
                // Scripts read this line to find a port picked with --port 0;
                // written unbuffered, so a pipe sees it at once.
                FileHandle.standardOutput.write(Data("listening on http://\(options.host):\(port)\n".utf8))
            },
            logger: logger
        )
        do {
            // Runs until SIGTERM or SIGINT, then lets in-flight requests finish.
            try await app.runService()
        } catch {
            FileHandle.standardError.write(Data("thumbnail-server: \(error)\n".utf8))
            exit(1)
        }
    }
}
