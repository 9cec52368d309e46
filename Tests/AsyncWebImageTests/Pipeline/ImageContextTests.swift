import Testing
@testable import AsyncWebImage

@Suite("ImageContext")
struct ImageContextTests {
    @Test("values are values: a copy changes alone, setting nil back empties the context")
    func valueSemantics() {
        var context = ImageContext()
        #expect(context.isEmpty)
        context.thumbnail = ThumbnailOptions(width: 10, height: 20)
        var copy = context
        copy.thumbnail = ThumbnailOptions(width: 30, height: 40, contentMode: .fill)
        copy.storeCacheType = .memory
        #expect(context.thumbnail == ThumbnailOptions(width: 10, height: 20))
        #expect(context.values.storeCacheType == nil)
        #expect(copy.thumbnail == ThumbnailOptions(width: 30, height: 40, contentMode: .fill))
        #expect(copy.storeCacheType == .memory)
        context.thumbnail = nil
        #expect(context.isEmpty)
        #expect(!copy.isEmpty)
        #expect(ImageContext(transformer: nil, thumbnail: nil).isEmpty)
    }

    @Test("an unset cache tier reads as its default; .none set is 'no tier', never 'inherit'")
    func cacheTiersAreNeverOptional() {
        // Given an empty context, and one that sets every tier to .none
        let empty = ImageContext()
        var none = ImageContext()
        none.storeCacheType = .none
        none.originalStoreCacheType = .none
        none.queryCacheType = .none

        // Then the empty one reads the documented defaults and inherits them
        #expect(empty.storeCacheType == .all && empty.originalStoreCacheType == .disk && empty.queryCacheType == .all)
        #expect(empty.values.storeCacheType == nil)
        // And .none is stored as the empty set of tiers, which wins a merge
        #expect(none.storeCacheType == [] && none.queryCacheType.isEmpty && !none.originalStoreCacheType.includesDisk)
        var base = ImageContext()
        base.storeCacheType = .all
        #expect(none.merged(over: base).storeCacheType == .none)
        #expect(empty.merged(over: base).storeCacheType == .all)
    }

    @Test("merging takes each value from the call first, then from the base")
    func merging() {
        var call = ImageContext(thumbnail: ThumbnailOptions(width: 8, height: 8))
        call.queryCacheType = .memory
        var base = ImageContext(transformer: ImageTransformers.Grayscale(), thumbnail: ThumbnailOptions(width: 99, height: 99))
        base.storeCacheType = .disk
        base.queryCacheType = .all
        let merged = call.merged(over: base)
        #expect(merged.thumbnail == ThumbnailOptions(width: 8, height: 8))
        #expect(merged.queryCacheType == .memory)
        #expect(merged.storeCacheType == .disk)
        #expect(merged.transformer?.key == ImageTransformers.Grayscale().key)
        #expect(ImageContext().merged(over: base).storeCacheType == .disk)
        #expect(call.merged(over: ImageContext()).thumbnail == ThumbnailOptions(width: 8, height: 8))
        #expect(ImageContext().merged(over: ImageContext()).isEmpty)
    }
}
