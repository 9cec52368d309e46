import AsyncWebImage
import Foundation
import LoopbackServer
import Synchronization

/// The benchmark's own HTTP server: a `LoopbackServer` on 127.0.0.1,
/// started by the first scenario that needs it and stopped at the end of the
/// run. It serves every corpus file under `/corpus/<name>`; scenarios add
/// their own routes (bodies, trickled files, gates).
final class BenchmarkServer: Sendable {
    private let running = Mutex<LoopbackServer?>(nil)
    private let corpus: Corpus

    init(corpus: Corpus) {
        self.corpus = corpus
    }

    /// The running server, started (with the corpus routes) on first use.
    func server() throws -> LoopbackServer {
        try running.withLock { running in
            if let server = running { return server }
            // Room for the curl baseline's and the loader's connections plus the soak's.
            let server = LoopbackServer(maxConnections: 512)
            try server.start()
            for image in corpus.images {
                let path = image.path
                // Read per request, so the corpus is not held in memory.
                server.route("/corpus/" + image.name) { _ in
                    guard let data = FileManager.default.contents(atPath: path) else { return .status(404) }
                    return .ok(data, contentType: image.format == .png ? "image/png" : image.format == .webp ? "image/webp" : "image/jpeg")
                }
            }
            running = server
            return server
        }
    }

    /// Stops the server if it was started.
    func stop() {
        let server = running.withLock { running in
            defer { running = nil }
            return running
        }
        server?.stop()
    }
}
