import AsyncWebImage

/// What `awi --json` prints: where the image came from, its size, the file
/// written and how long each step took.
struct AwiReport: Encodable {
    /// The written file.
    struct Output: Encodable {
        let path: String
        let format: String
        let bytes: Int
    }

    /// Wall-clock milliseconds of each step.
    struct Timings: Encodable {
        let load: Double
        let encode: Double
        let write: Double
        let total: Double
    }

    let url: String
    /// `network`, `memory`, `disk` or `cache`.
    let source: String
    let width: Int
    let height: Int
    let pixelFormat: String
    /// Body bytes received from the network (0 for a cache hit).
    let downloadedBytes: Int64
    let previews: Int
    let output: Output
    let milliseconds: Timings

    /// The one-line human summary.
    var summary: String {
        "\(url): \(width)×\(height) \(pixelFormat) from \(source) in \(milliseconds.total) ms → \(output.path) (\(output.bytes) bytes)"
    }

    /// The report's name of where the image came from.
    static func source(of source: ImageSource) -> String {
        switch source {
        case .stale: "stale"
        default: source.description
        }
    }

    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return ((Double(seconds) * 1000 + Double(attoseconds) / 1e15) * 10).rounded() / 10
    }
}
