import Foundation
import HTTPTypes
import Logging
@testable import AsyncWebImage

/// What the stage suites share: a loader only to resolve requests (the
/// stages under test are built by hand), real caches in a temporary
/// directory, real PNG bytes and HTTP records.
struct StageFixture {
    let directory = TemporaryDirectory("awi-stage")
    let memory = MemoryCache()
    let disk: DiskStore
    let cache: ImageCache
    let loader = ImageLoader(configuration: ImageLoader.Configuration())
    let telemetry = LoaderTelemetry(logger: Logger(label: "awi.stage-test"), factory: nil, tracer: nil)
    let url = URL(string: "http://127.0.0.1:9/stage.png")!

    init(withDisk: Bool = true) {
        disk = DiskStore(directory: directory.url)
        cache = ImageCache(memory: memory, disk: withDisk ? disk : nil)
    }

    /// The resolved load of `url` into this fixture's cache.
    func request(
        options: ImageOptions = [], transformer: (any ImageTransformer)? = nil, queryCacheType: ImageCacheType = .all,
        originalStoreCacheType: ImageCacheType? = nil
    ) async throws -> ImageLoadRequest {
        var context = ImageContext(transformer: transformer, cache: cache)
        context.queryCacheType = queryCacheType
        if let originalStoreCacheType { context.originalStoreCacheType = originalStoreCacheType }
        return try await loader.makeRequest(url, options: options, context: context)
    }

    /// A 4×2 RGB image whose pixel (x, y) is (x·60, y·100, 7).
    static let image: Image = {
        var pixels: [UInt8] = []
        for y in 0..<2 { for x in 0..<4 { pixels += [UInt8(x * 60), UInt8(y * 100), 7] } }
        return try! Image(width: 4, height: 2, pixelFormat: .rgb8, pixels: pixels)
    }()

    /// ``image`` as PNG bytes, encoded by the core's PNG encoder. Computed,
    /// not a `static let`: a global `Data` keeps its buffer behind a tagged
    /// pointer, which LeakSanitizer cannot follow, so it reported the
    /// fixture as leaked at exit.
    static var png: Data { try! PNGCoder().encode(image, as: .png, quality: 1) }

    /// The metadata stored under `key`, decoded (its JSON encoding does not
    /// keep the order of its fields, so bytes cannot be compared).
    func storedMetadata(forKey key: String) async throws -> HTTPCacheMetadata? {
        try await disk.extendedData(forKey: key).flatMap(HTTPCacheMetadata.init(encoded:))
    }

    /// A record of a response with `headers`, received `age` seconds ago.
    static func record(_ headers: HTTPFields, age: TimeInterval = 0, url: URL) -> HTTPCacheRecord {
        HTTPCacheRecord(metadata(headers, age: age, url: url), policy: .strictPrivate)
    }

    /// The metadata of a response with `headers`, received `age` seconds ago.
    static func metadata(_ headers: HTTPFields, age: TimeInterval = 0, url: URL) -> HTTPCacheMetadata {
        let head = HTTPResponseHead(statusCode: 200, headers: headers, expectedContentLength: nil, url: url)
        let now = Date().addingTimeInterval(-age)
        return HTTPCacheMetadata(head: head, request: DataRequest(url: url), requestTime: now, responseTime: now, mode: .strictPrivate)
    }
}
