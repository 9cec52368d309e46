import Testing
@testable import AsyncWebImage

@Suite("ImageCacheType", .timeLimit(.minutes(1)))
struct ImageCacheTypeTests {
    @Test("names the tiers it includes")
    func tiers() {
        #expect(ImageCacheType.all.includesMemory && ImageCacheType.all.includesDisk)
        #expect(ImageCacheType.memory.includesMemory && !ImageCacheType.memory.includesDisk)
        #expect(!ImageCacheType.disk.includesMemory && ImageCacheType.disk.includesDisk)
        #expect(!ImageCacheType.none.includesMemory && !ImageCacheType.none.includesDisk)
        #expect("\(ImageCacheType.disk)" == "disk")
    }
}
