import Testing
@_spi(Benchmarks) @testable import AsyncWebImage

@Suite("ImageContext")
struct ImageContextTests {
    @Test("values are values: a copy changes alone, setting nil back empties the context")
    func valueSemantics() {
        var context = ImageContext()
        #expect(context.isEmpty)
        context.thumbnailPixelSize = PixelSize(width: 10, height: 20)
        var copy = context
        copy.thumbnailPixelSize = PixelSize(width: 30, height: 40)
        copy.storeCacheType = .memory
        #expect(context.thumbnailPixelSize == PixelSize(width: 10, height: 20))
        #expect(context.storeCacheType == nil)
        #expect(copy.thumbnailPixelSize == PixelSize(width: 30, height: 40))
        #expect(copy.storeCacheType == .memory)
        context.thumbnailPixelSize = nil
        #expect(context.isEmpty)
        #expect(!copy.isEmpty)
        #expect(ImageContext(preserveAspectRatio: false).preserveAspectRatio == false)
        #expect(ImageContext(transformer: nil, thumbnailPixelSize: nil).isEmpty)
    }

    @Test("merging takes each value from the call first, then from the base")
    func merging() {
        let call = ImageContext(thumbnailPixelSize: PixelSize(width: 8, height: 8), queryCacheType: .memory)
        let base = ImageContext(
            transformer: ImageTransformers.Grayscale(), thumbnailPixelSize: PixelSize(width: 99, height: 99),
            storeCacheType: .disk, queryCacheType: .all
        )
        let merged = call.merged(over: base)
        #expect(merged.thumbnailPixelSize == PixelSize(width: 8, height: 8))
        #expect(merged.queryCacheType == .memory)
        #expect(merged.storeCacheType == .disk)
        #expect(merged.transformer?.key == ImageTransformers.Grayscale().key)
        #expect(ImageContext().merged(over: base).storeCacheType == .disk)
        #expect(call.merged(over: ImageContext()).thumbnailPixelSize == PixelSize(width: 8, height: 8))
        #expect(ImageContext().merged(over: ImageContext()).isEmpty)
    }
}
