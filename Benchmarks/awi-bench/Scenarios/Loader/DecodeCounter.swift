import AsyncWebImage
import AsyncWebImageAllFormats
import Foundation
import Synchronization

/// The built-in decoders behind a counter, registered first in a loader's
/// registry, so a scenario can report how many decodes a load really cost.
struct DecodeCounter: ImageDecoding {
    private let count = Counter()
    private let base = ImageCoderRegistry.allFormats

    final class Counter: Sendable {
        let value = Mutex(0)
    }

    /// Decodes so far.
    var decodes: Int { count.value.withLock { $0 } }

    func canDecode(_ data: Data) -> Bool { base.decoder(for: data) != nil }

    func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        count.value.withLock { $0 += 1 }
        return try base.decode(data, options: options)
    }

    /// A registry that decodes through this counter.
    var registry: ImageCoderRegistry {
        var registry = ImageCoderRegistry.allFormats
        registry.add(decoder: self)
        return registry
    }
}
