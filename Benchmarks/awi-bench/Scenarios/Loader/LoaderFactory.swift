import AsyncWebImage
import AsyncWebImageAllFormats
import Foundation

/// Loaders for the pipeline scenarios: a fresh memory cache, no disk (so
/// each measured load downloads, and disk speed is measured elsewhere), one
/// shared data loader.
enum LoaderFactory {
    static func make(dataLoader: CurlDataLoader, coders: ImageCoderRegistry = .allFormats, previewInterval: Duration = .milliseconds(100)) -> (ImageLoader, MemoryCache) {
        let memory = MemoryCache()
        var configuration = ImageLoader.Configuration(cache: ImageCache(memory: memory, disk: nil))
        configuration.dataLoader = dataLoader
        configuration.coders = coders
        configuration.previewInterval = previewInterval
        return (ImageLoader(configuration: configuration), memory)
    }
}
