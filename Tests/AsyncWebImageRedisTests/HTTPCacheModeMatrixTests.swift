import Foundation
import LoopbackServer
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageRedis

/// The table of the README's *HTTP caching* section, measured: five kinds of
/// origin × the five cache modes, the origin requests each tier's second
/// load of an image makes. Memory: the same loader loads it again. Disk: a
/// new loader on the same disk. Shared tier: a new loader with an empty disk
/// on the same Redis. Each cell is checked, and the table printed
/// (`AWI_MODE_TABLE=<file>` writes it there too).
@Suite("HTTP cache modes × origins", .serialized, .timeLimit(.minutes(2)))
struct HTTPCacheModeMatrixTests {
    /// An origin's caching header fields, as the README names them.
    struct Origin: Sendable {
        let name: String
        let headers: [(String, String)]
        let etag: String?
    }

    static let origins: [Origin] = [
        Origin(name: "silent", headers: [], etag: nil),
        Origin(name: "`max-age=3600`", headers: [("Cache-Control", "max-age=3600")], etag: nil),
        Origin(name: "`no-cache` + `ETag`", headers: [("Cache-Control", "no-cache")], etag: "\"n\""),
        Origin(name: "`no-store`", headers: [("Cache-Control", "no-store")], etag: nil),
        Origin(name: "`ETag` only", headers: [], etag: "\"v\""),
    ]

    static let modes: [ImageLoader.HTTPCacheMode] = [.private, .shared, .strictPrivate, .strictShared, .ignoringHeaders]

    /// What each mode's second loads cost, per origin in ``origins`` order:
    /// "0" no request, "1" a download, "c" a conditional request (a 304),
    /// the same for every tier.
    static let expected: [ImageLoader.HTTPCacheMode: [String]] = [
        .private: ["0", "0", "c", "1", "0"],
        .shared: ["0", "0", "c", "1", "0"],
        .strictPrivate: ["1", "0", "c", "1", "c"],
        .strictShared: ["1", "0", "c", "1", "c"],
        .ignoringHeaders: ["0", "0", "0", "0", "0"],
    ]

    static func name(_ mode: ImageLoader.HTTPCacheMode) -> String {
        switch mode {
        case .private: "`.private` (default)"
        case .shared: "`.shared`"
        case .strictPrivate: "`.strictPrivate`"
        case .strictShared: "`.strictShared`"
        case .ignoringHeaders: "`.ignoringHeaders`"
        }
    }

    @Test("every mode × origin × tier: the second load's origin requests are the table's")
    func matrix() async throws {
        let redis = try await RedisServer()
        let server = LoopbackServer()
        try server.start()
        defer { server.stop() }
        let png = try FleetFixture.png()
        // One transfer engine and one Redis client for the 75 loaders.
        let dataLoader = CurlDataLoader()
        let store = try RedisStore(configuration: RedisStore.Configuration(endpoints: [redis.endpoint]))
        func node(_ mode: ImageLoader.HTTPCacheMode, directory: URL? = nil) throws -> FleetNode {
            try FleetFixture.loader(shared: store, httpCacheMode: mode, directory: directory) { $0.dataLoader = dataLoader }
        }
        var table = "| mode | " + Self.origins.map(\.name).joined(separator: " | ") + " |\n"
        table += "|---|" + String(repeating: "---|", count: Self.origins.count) + "\n"
        var paths = 0
        for mode in Self.modes {
            var cells: [String] = []
            for (index, origin) in Self.origins.enumerated() {
                var tiers: [String] = []
                for tier in ["memory", "disk", "shared"] {
                    paths += 1
                    let path = "/m\(paths).png"
                    var response = LoopbackServer.Response(
                        headers: [("Content-Type", "image/png")] + origin.headers.map { (name: $0.0, value: $0.1) }, body: png
                    )
                    response.etag = origin.etag
                    server.route(path, response)
                    let url = server.url(path)
                    let first = try node(mode)
                    defer { first.removeDirectory() }
                    _ = try await first.loader.response(url, options: .waitStoreCache)
                    let second: FleetNode? = switch tier {
                    case "memory": nil
                    case "disk": try node(mode, directory: first.directory)
                    default: try node(mode)
                    }
                    defer { if tier == "shared" { second?.removeDirectory() } }
                    _ = try await (second ?? first).loader.response(url)
                    let statistics = server.statistics(path)
                    let cost = statistics.requests == 1 ? "0" : statistics.notModifiedResponses == 1 ? "c" : "\(statistics.requests - 1)"
                    tiers.append(cost)
                    #expect(cost == Self.expected[mode]?[index], "\(mode), \(origin.name), \(tier): \(cost)")
                }
                cells.append(Set(tiers).count == 1 ? Self.label(tiers[0]) : tiers.map(Self.label).joined(separator: " / "))
            }
            table += "| \(Self.name(mode)) | " + cells.joined(separator: " | ") + " |\n"
        }
        await dataLoader.shutdown()
        print(table)
        if let path = ProcessInfo.processInfo.environment["AWI_MODE_TABLE"] {
            try table.write(toFile: path, atomically: true, encoding: .utf8)
        }
    }

    static func label(_ cost: String) -> String {
        switch cost {
        case "0": "hit (0)"
        case "c": "304 (1 conditional)"
        default: "download (\(cost))"
        }
    }
}
