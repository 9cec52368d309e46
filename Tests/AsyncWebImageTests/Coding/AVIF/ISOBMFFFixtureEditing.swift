import Foundation
import Testing
@testable import AsyncWebImage

/// Hostile variants of a real AVIF or HEIC file, made by editing its boxes,
/// and the checks every such variant must pass.
enum ISOBMFFFixtureEditing {
    /// The offset of the first box of type `fourCC` (its size field), or `nil`.
    static func boxOffset(_ fourCC: String, in data: Data) -> Int? {
        guard let range = data.range(of: Data(fourCC.utf8)) else { return nil }
        return range.lowerBound - data.startIndex - 4
    }

    /// `data` with the big-endian 32-bit word at `offset` replaced.
    static func replacingWord(at offset: Int, with value: UInt32, in data: Data) -> Data {
        var bytes = [UInt8](data)
        bytes[offset] = UInt8(value >> 24)
        bytes[offset + 1] = UInt8(value >> 16 & 0xFF)
        bytes[offset + 2] = UInt8(value >> 8 & 0xFF)
        bytes[offset + 3] = UInt8(value & 0xFF)
        return Data(bytes)
    }

    /// `data` whose every `ispe` box declares `width`×`height` (a HEIC
    /// has one for the coded image and one for the primary item).
    static func withSpatialExtents(width: UInt32, height: UInt32, in data: Data) throws -> Data {
        var edited = data
        var searchFrom = edited.startIndex
        var found = 0
        while let range = edited.range(of: Data("ispe".utf8), in: searchFrom..<edited.endIndex) {
            // 'ispe', version and flags, then width and height.
            let box = range.lowerBound - edited.startIndex - 4
            edited = replacingWord(at: box + 16, with: height, in: replacingWord(at: box + 12, with: width, in: edited))
            searchFrom = edited.startIndex + box + 20
            found += 1
        }
        try #require(found > 0, "no ispe box")
        return edited
    }

    /// Variants whose box sizes lie: too large, too small, zero, past the
    /// end, for the file's main boxes.
    static func lyingBoxSizes(_ data: Data) -> [(String, Data)] {
        var variants: [(String, Data)] = []
        for box in ["ftyp", "meta", "iinf", "iloc", "iprp", "ipco", "ispe", "mdat"] {
            guard let offset = boxOffset(box, in: data) else { continue }
            let original = UInt32(data[data.startIndex + offset]) << 24 | UInt32(data[data.startIndex + offset + 1]) << 16
                | UInt32(data[data.startIndex + offset + 2]) << 8 | UInt32(data[data.startIndex + offset + 3])
            for (label, size) in [("huge", UInt32.max - 7), ("past-end", UInt32(data.count) + 1000), ("tiny", 7), ("zero", 0), ("short", original &- 5)] {
                variants.append(("\(box) size \(label)", replacingWord(at: offset, with: size, in: data)))
            }
        }
        return variants
    }

    /// Prefixes of `data` cut at several offsets (inside the ftyp box, the
    /// meta box, and the coded data).
    static func truncations(_ data: Data) -> [(String, Data)] {
        var cuts = [1, 4, 8, 12, 20, 32, 64, 100, 200, data.count / 2, data.count - 40, data.count - 10, data.count - 1]
        if let mdat = boxOffset("mdat", in: data) { cuts += [mdat, mdat + 8, mdat + 12] }
        return Set(cuts.filter { $0 > 0 && $0 < data.count }).sorted().map { ("cut at \($0)", data.prefix($0)) }
    }

    /// Empty, one byte, a lone `ftyp` header and seeded random bytes (with
    /// and without a valid `ftyp` in front).
    static func junk(brand: String) -> [(String, Data)] {
        var generator = SplitMix(seed: 0xA71F)
        let random = Data((0..<4096).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
        var ftyp = Data([0, 0, 0, 24]) + Data("ftyp\(brand)".utf8) + Data([0, 0, 0, 0]) + Data("mif1\(brand)".utf8)
        let lone = ftyp
        ftyp.append(random)
        return [("empty", Data()), ("one byte", Data([0])), ("ftyp only", lone), ("random", random), ("ftyp + random", ftyp)]
    }

    /// Decodes `data` with `decoder`, expecting a typed ``ImageError`` and
    /// nothing else (no image, no other error type).
    static func expectImageError(_ decoder: any ImageDecoding, _ data: Data, _ label: String, options: ImageDecodingOptions = .init()) {
        do {
            let image = try decoder.decode(data, options: options)
            Issue.record("\(label): decoded \(image) from bad data")
        } catch is ImageError {
        } catch {
            Issue.record("\(label): \(type(of: error)) is not an ImageError: \(error)")
        }
    }
}

/// A small deterministic generator (SplitMix64) for seeded junk.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
