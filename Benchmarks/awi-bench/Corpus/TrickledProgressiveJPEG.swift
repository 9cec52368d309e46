import AsyncWebImage
import Foundation
import LoopbackServer

/// The corpus's ~2 MB progressive JPEG served by the benchmark's server at
/// 1 MB/s: what the progressive scenarios download.
struct TrickledProgressiveJPEG {
    let file: CorpusImage
    let data: Data
    let url: URL

    /// The corpus file, or `ScenarioSkipped` when the corpus has none.
    static func file(in context: BenchmarkContext) throws -> CorpusImage {
        guard let file = context.corpus.image(.jpeg, .progressive, bytes: CorpusGenerator.progressiveTargetBytes) else {
            throw ScenarioSkipped("no progressive JPEG in the corpus")
        }
        return file
    }

    /// The case name both scenarios print.
    static func caseName(_ file: CorpusImage) -> String {
        "\(file.label), \(file.byteCount / 1000) KB at 1 MB/s"
    }

    /// Routes `file` under `/<prefix>/` on the benchmark's server, trickled.
    init(_ file: CorpusImage, prefix: String, context: BenchmarkContext) throws {
        self.file = file
        data = try context.corpus.data(of: file)
        let server = try context.server.server()
        let path = "/\(prefix)/" + file.name
        // 16,384 bytes every 16.384 ms: 1,000,000 bytes per second.
        server.route(path, LoopbackServer.Response(
            headers: [("Content-Type", "image/jpeg")], body: data,
            trickle: .init(bytesPerPiece: 16_384, interval: .microseconds(16_384))
        ))
        url = server.url(path)
    }
}
