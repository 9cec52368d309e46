import Foundation
import AWILocking
#if canImport(Glibc)
import Glibc
#endif
@testable import AsyncWebImage
import AsyncWebImageAllFormats

/// A real decoder for a tiny test format, registered through the real
/// registry, that counts its calls and how many run at once.
///
/// Format: `"TSTI"`, side (1 byte), value (1 byte) → a side×side gray image
/// filled with value. Anything else starting with `"TSTI"` is undecodable.
struct CountingDecoder: ImageDecoding {
    struct Counts: Sendable {
        var calls = 0
        var running = 0
        var peak = 0
    }

    let counts = Locked(Counts())
    /// Microseconds each decode takes, to let concurrent decodes overlap.
    var delayMicroseconds: UInt32 = 0

    static func encode(side: UInt8, value: UInt8) -> Data {
        Data("TSTI".utf8) + Data([side, value])
    }

    func canDecode(_ data: Data) -> Bool { data.starts(with: Data("TSTI".utf8)) }

    func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        counts.withLock { $0.calls += 1; $0.running += 1; $0.peak = max($0.peak, $0.running) }
        defer { counts.withLock { $0.running -= 1 } }
        if delayMicroseconds > 0 { usleep(delayMicroseconds) }
        let bytes = [UInt8](data)
        guard bytes.count == 6, bytes[4] > 0 else { throw ImageError.undecodable(.unknown, "not a TSTI image") }
        let side = Int(bytes[4])
        return try Image(width: side, height: side, pixelFormat: .gray8,
                         pixels: [UInt8](repeating: bytes[5], count: side * side))
    }

    /// A registry with this decoder first, then the built-in coders.
    var registry: ImageCoderRegistry {
        var registry = ImageCoderRegistry.allFormats
        registry.add(decoder: self)
        return registry
    }
}
