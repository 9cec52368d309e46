import Foundation
import HTTPTypes
import Testing
@testable import AsyncWebImage

@Suite("ImageRequestKeys: one identity per load")
struct ImageRequestKeysTests {
    let url = URL(string: "https://example.com/a.png?sig=1")!

    func keys(_ request: DataRequest, filter: CacheKeyFilter? = nil, suffix: String = "", transformer: (any ImageTransformer)? = nil) -> ImageRequestKeys {
        ImageRequestKeys(url: url, filter: filter, variant: request.key.variant, decodingSuffix: suffix, transformer: transformer)
    }

    @Test("a request with every default keeps the plain keys of earlier versions")
    func plainKeys() {
        let keys = keys(DataRequest(url: url, priority: .high))
        #expect(keys.dataKey == url.absoluteString)
        #expect(keys.originalImageKey == url.absoluteString)
        #expect(keys.resultKey == url.absoluteString)
        #expect(keys.origin.variant.isPlain)
    }

    @Test("decode and transform parts extend the plain key")
    func resultParts() {
        let keys = keys(DataRequest(url: url), suffix: "#decode=x", transformer: ImageTransformers.Grayscale())
        #expect(keys.dataKey == url.absoluteString)
        #expect(keys.originalImageKey == url.absoluteString + "#decode=x")
        #expect(keys.resultKey == url.absoluteString + "#decode=x#transform=" + ImageTransformers.Grayscale().key)
    }

    @Test("credentials, cookies and TLS options each make another identity, and no key spells a token")
    func variantsSplit() throws {
        var a = DataRequest(url: url)
        try a.setValue("Bearer secret-A", forHTTPHeaderField: "Authorization")
        var b = a
        try b.setValue("Bearer secret-B", forHTTPHeaderField: "authorization")
        let cookies = DataRequest(url: url, handleCookies: true)
        let insecure = DataRequest(url: url, allowInvalidSSLCertificates: true)
        let all = [keys(a), keys(b), keys(cookies), keys(insecure), keys(DataRequest(url: url))]
        #expect(Set(all.map(\.dataKey)).count == 5)
        #expect(Set(all.map(\.origin)).count == 5)
        for key in all {
            #expect(!key.dataKey.contains("secret"))
            #expect(!key.origin.variant.description.contains("secret"))
        }
        #expect(keys(a).dataKey.hasPrefix(url.absoluteString + "#variant="))
    }

    @Test("header names are one field in any case; the priority is not part of the identity")
    func spelling() {
        var a = DataRequest(url: url, priority: .low)
        a.headers = httpFields(["X-Tenant": "t1", "Authorization": "Bearer A"])
        var b = DataRequest(url: url, priority: .high)
        b.headers = httpFields(["authorization": "Bearer A", "x-tenant": "t1"])
        #expect(keys(a) == keys(b))
        #expect(a.key == b.key)
    }

    @Test("ignored headers leave the cache keys but not the download or failed-URL identity")
    func ignoredHeaders() {
        var a = DataRequest(url: url)
        a.headers = [.authorization: "Bearer A", .accept: "image/png"]
        var b = a
        b.headers[.authorization] = "Bearer B"
        let filter = CacheKeyFilter(ignoringHeaders: [HTTPField.Name("AUTHORIZATION")!])
        #expect(keys(a, filter: filter).dataKey == keys(b, filter: filter).dataKey)
        #expect(keys(a, filter: filter).dataKey != url.absoluteString)  // Accept still counts
        #expect(keys(a, filter: filter).origin != keys(b, filter: filter).origin)
        #expect(a.key != b.key)
        var plain = DataRequest(url: url)
        plain.headers = [.authorization: "Bearer A"]
        #expect(keys(plain, filter: filter).dataKey == url.absoluteString)
    }

    @Test("the URL filter applies to the cache keys, not to the failed-URL identity")
    func filter() {
        let filter = CacheKeyFilter { $0.absoluteString.components(separatedBy: "?")[0] }
        let keys = keys(DataRequest(url: url), filter: filter)
        #expect(keys.dataKey == "https://example.com/a.png")
        #expect(keys.origin.url == url.absoluteString)
    }
}

extension ImageRequestKeysTests {
    @Test("options outside variantOptions leave the request plain, as the fast path assumes")
    func fastPathVariantAssumption() {
        let all: [ImageOptions] = [
            .retryFailed, .lowPriority, .highPriority, .progressiveLoad, .refreshCached, .handleCookies,
            .allowInvalidSSLCertificates, .scaleDownLargeImages, .queryMemoryData, .fromCacheOnly, .fromLoaderOnly,
            .avoidDecodeImage, .decodeFirstFrameOnly, .waitStoreCache, .transformAnimatedImage, .preloadAllFrames,
        ]
        for option in all {
            let plain = ImageLoader.dataRequest(url, options: option).key.variant.isPlain
            #expect(plain == option.isDisjoint(with: ImageLoader.variantOptions), "\(option)")
        }
    }
}
