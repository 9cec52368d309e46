import AWIBenchResults
import AsyncWebImage
import AsyncWebImageAllFormats
import Foundation
import LoopbackServer

/// Revalidating a cached image that is due (`Cache-Control: no-cache` and an
/// `ETag`: every load asks the server, which answers `304 Not Modified` with
/// no body, and the image in memory is served with no decode) through
/// `ImageLoader.image(url)`, against a plain request with no body (a `200`
/// of zero bytes) through the same `CurlDataLoader`. Same server, same run,
/// rounds interleaved: the loader's revalidation may cost at most 1.2× the
/// bare round trip.
struct RevalidationScenario: Scenario {
    let name = "revalidation-304"
    let summary = "ImageLoader revalidation of a due entry (304, no body) vs a plain no-body request: ≤ 1.2×"

    private static let requests = 200

    /// What the revalidation is compared with.
    enum Baseline: CaseIterable {
        /// The bare round trip: `CurlDataLoader.loadData` of a no-body 200.
        case dataLoader
        /// The same loader's download of a no-body 200 (`.fromLoaderOnly`,
        /// `.avoidDecodeImage`): what is left is the cost of the cache
        /// lookup, the conditional request and the metadata refresh.
        case loader
    }

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        var rows: [ResultRow] = []
        for baseline in Baseline.allCases {
            let caseName = "\(Self.requests) sequential revalidations, vs " + (baseline == .dataLoader ? "CurlDataLoader" : "ImageLoader download")
            rows.append(await context.measureCase(scenario: name, caseName: caseName) {
                try await measure(caseName: caseName, baseline: baseline, context: context)
            })
        }
        return rows
    }

    private func measure(caseName: String, baseline: Baseline, context: BenchmarkContext) async throws -> ResultRow {
        let server = try context.server.server()
        let image = try Image(
            width: 256, height: 256, pixelFormat: .rgb8, pixels: SyntheticPhoto.rgb(width: 256, height: 256, seed: 304)
        )
        let png = try ImageCoderRegistry.allFormats.encode(image, as: .png)
        server.route("/revalidation/photo.png", LoopbackServer.Response(
            headers: [("Content-Type", "image/png"), ("Cache-Control", "no-cache")], body: png, etag: "\"photo-1\""
        ))
        server.route("/revalidation/empty", LoopbackServer.Response(headers: [("Cache-Control", "no-cache")]))
        let photo = server.url("/revalidation/photo.png")
        let empty = server.url("/revalidation/empty")

        let dataLoader = CurlDataLoader()
        let (loader, _) = LoaderFactory.make(dataLoader: dataLoader)
        guard try await loader.response(photo).source == .network else { throw BenchmarkFailure("the first load did not download") }
        guard try await loader.data(for: ImageRequest(url: empty, options: .fromLoaderOnly)).data.isEmpty else {
            throw BenchmarkFailure("the loader's no-body download did not come back empty")
        }
        let before = server.statistics("/revalidation/photo.png")
        guard try await loader.response(photo).source == .revalidated,
              server.statistics("/revalidation/photo.png").notModifiedResponses == before.notModifiedResponses + 1 else {
            throw BenchmarkFailure("the loader did not revalidate its memory entry with a 304")
        }

        let start = server.statistics("/revalidation/photo.png")
        let plan = context.plan(warmup: 1, minIterations: 5, maxIterations: 20, budget: 6)
        let measurement = try await InterleavedMeasurement.run(
            plan: plan, progress: context.progress,
            ours: {
                try await Sample.inProcess {
                    for _ in 0..<Self.requests { blackHole(try await loader.image(photo)) }
                }
            },
            baseline: {
                try await Sample.inProcess {
                    for _ in 0..<Self.requests {
                        switch baseline {
                        case .dataLoader:
                            for try await event in dataLoader.loadData(for: DataRequest(url: empty)) { blackHole(event) }
                        case .loader:
                            blackHole(try await loader.data(for: ImageRequest(url: empty, options: .fromLoaderOnly)))
                        }
                    }
                }
            }
        )
        let end = server.statistics("/revalidation/photo.png")
        let conditional = end.conditionalRequests - start.conditionalRequests
        let notModified = end.notModifiedResponses - start.notModifiedResponses
        var row = ResultRow(
            scenario: name, caseName: caseName, measurement: measurement,
            unitsPerOperation: Double(Self.requests), unit: "req/s", basis: .wall,
            baseline: baseline == .dataLoader ? "plain request, no body" : "loader download, no body", target: .timeAtMost(1.2)
        )
        row.note = "one operation = \(Self.requests) loads one after another; server saw "
            + "\(conditional) conditional requests, \(notModified) 304s, "
            + "\(end.bodyBytesSent - start.bodyBytesSent) body bytes for the photo while measured"
        if notModified != conditional || conditional == 0 {
            row.note = (row.note ?? "") + "; PROBLEMS: a conditional request was not answered 304"
            row.passed = false
        }
        return row
    }
}
