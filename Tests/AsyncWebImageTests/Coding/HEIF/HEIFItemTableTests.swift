import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageHEIF
import AsyncWebImageAllFormats

/// The package's own reading of HEIF item boxes, which guards libheif 1.15
/// against derived images whose descriptor disagrees with their tiles.
@Suite("HEIFItemTable", .timeLimit(.minutes(2)))
struct HEIFItemTableTests {
    static let fixtures = ["rgb8", "rgba8", "rgb10", "icc", "premultiplied", "thumbnail"]

    /// The grid descriptor's offset in a heif-enc fixture: the payload of
    /// its `idat` box (version, flags, rows − 1, columns − 1, width, height).
    static func gridDescriptorOffset(_ data: Data) throws -> Int {
        let range = try #require(data.range(of: Data("idat".utf8)))
        return range.upperBound
    }

    static func patched(_ name: String, _ edit: (inout Data, Int) -> Void) throws -> Data {
        var data = try HEIFFixture.data("\(name).heic")
        let offset = try gridDescriptorOffset(data)
        edit(&data, offset)
        return data
    }

    @Test("heif-enc's files: the primary is a 1×1 grid whose descriptor, ispe and tile agree", arguments: fixtures)
    func readsFixtures(name: String) throws {
        let data = try HEIFFixture.data("\(name).heic")
        try data.withUnsafeBytes { bytes in
            let table = try HEIFItemTable(reading: bytes)
            let primaryID = try #require(table.primaryID)
            let primary = try #require(table.items[primaryID])
            #expect(primary.type == HEIFBoxCursor.fourCC("grid"))
            #expect(primary.declaredSize == PixelSize(width: 64, height: 48))
            #expect(primary.derivedFrom.count == 1)
            let tile = try #require(table.items[primary.derivedFrom[0]])
            #expect(tile.type == HEIFBoxCursor.fourCC("hvc1"))
            let tileSize = try #require(tile.declaredSize)
            #expect(tileSize.width >= 64 && tileSize.height >= 48)
            let descriptor = try #require(table.data(of: primary))
            #expect(Array(descriptor) == [0, 0, 0, 0, 0, 64, 0, 48])
            try table.checkDerivedImage(maxPixelCount: 100_000_000)
        }
    }

    @Test("the fuzzing finding that crashed libheif (its grid descriptor lies past the idat box) is a typed error, not a crash")
    func fuzzFinding() throws {
        let data = try fixture("fuzz", "heic-libheif-open-finding.heic")
        for limit in [100_000_000, 400_000_000] {
            let message = Self.undecodableMessage { try HEIFCoder().decode(data, options: .init(maxPixelCount: limit)) }
            #expect(message?.contains("outside its box") == true, "\(message ?? "nil")")
        }
    }

    @Test("the second fuzzing finding (iinf declares 1 item, holds 2: the uncounted one makes the primary a grid that libheif sized at 800 MB) is refused before decoding")
    func iinfCountFinding() throws {
        let data = try fixture("fuzz", "heic-iinf-count-finding.heic")
        for options in [ImageDecodingOptions(), ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 16, height: 16))] {
            let message = Self.undecodableMessage { try HEIFCoder().decode(data, options: options) }
            #expect(message == "iinf declares 1 items and holds more", "\(message ?? "nil")")
        }
    }

    @Test("the third fuzzing finding (the primary's alpha image is a grid tiled with the primary itself: libheif recursed until its stack overflowed) is refused before decoding; so is the same cycle through an iden")
    func alphaCycleFinding() throws {
        let data = try fixture("fuzz", "heic-alpha-cycle-finding.heic")
        for options in [ImageDecodingOptions(), ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 16, height: 16))] {
            let message = Self.undecodableMessage { try HEIFCoder().decode(data, options: options) }
            #expect(message == "a grid tile is a grid", "\(message ?? "nil")")
        }
        try data.withUnsafeBytes { bytes in
            let table = try HEIFItemTable(reading: bytes)
            #expect(table.items[2]?.auxiliaries == [4])
            #expect(table.items[4]?.derivedFrom == [2])
        }
        // The same cycle through an iden alpha image (an iden of a grid is
        // allowed on its own): refused as a cycle.
        var bytes = [UInt8](data)
        let typeOffset = 360 // item 4's infe: box header, version and flags, ID, protection index
        try #require(Array(bytes[typeOffset..<typeOffset + 4]) == Array("grid".utf8))
        bytes.replaceSubrange(typeOffset..<typeOffset + 4, with: Array("iden".utf8))
        let message = Self.undecodableMessage { try HEIFCoder().decode(Data(bytes), options: .init()) }
        #expect(message == "item 2 is built from itself", "\(message ?? "nil")")
    }

    @Test("boxes this reader could read otherwise than libheif are refused: an iinf count that disagrees, a repeated box in meta")
    func ambiguousStructure() throws {
        let original = try HEIFFixture.data("rgb8.heic")
        func edited(_ marker: String, _ edit: (inout [UInt8], Int) -> Void) throws -> Data {
            var bytes = [UInt8](original)
            let needle = Array(marker.utf8)
            let at = try #require((0...(bytes.count - 4)).first { Array(bytes[$0..<$0 + 4]) == needle }, "no \(marker)")
            edit(&bytes, at)
            return Data(bytes)
        }
        func tableError(_ data: Data) -> String? {
            let result: Result<HEIFItemTable, ImageError> = data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
                Result { () throws(ImageError) in try HEIFItemTable(reading: bytes) }
            }
            guard case .failure(let error) = result else { return nil }
            guard case .undecodable(.heic, let message) = error else { return "\(error)" }
            return message
        }
        #expect(tableError(original) == nil)
        // iinf version 0: 'iinf', version and flags, a 16-bit count (2 in heif-enc's files).
        let moreDeclared = try edited("iinf") { bytes, at in bytes[at + 9] += 1 }
        #expect(tableError(moreDeclared) == "iinf declares 3 items and holds 2")
        let fewerDeclared = try edited("iinf") { bytes, at in bytes[at + 9] -= 1 }
        #expect(tableError(fewerDeclared) == "iinf declares 1 items and holds more")
        // The hdlr box renamed: a second idat.
        let twoIdat = try edited("hdlr") { bytes, at in bytes.replaceSubrange(at..<at + 4, with: Array("idat".utf8)) }
        #expect(tableError(twoIdat) == "two idat boxes in meta")
        ISOBMFFFixtureEditing.expectImageError(HEIFCoder(), moreDeclared, "iinf count")
    }

    @Test("a grid descriptor of 16384×12544 (as libheif read the finding) is over the limit before anything is decoded")
    func descriptorOverLimit() throws {
        let data = try Self.patched("rgb8") { data, offset in
            data[offset + 4] = 0x40; data[offset + 5] = 0; data[offset + 6] = 0x31; data[offset + 7] = 0
        }
        #expect(throws: ImageError.tooLarge(.pixels, limit: 100_000_000, actual: 16_384 * 12_544)) {
            try HEIFCoder().decode(data, options: .init())
        }
        // Allowed by the limit, it still disagrees with the grid's ispe.
        let message = Self.undecodableMessage { try HEIFCoder().decode(data, options: .init(maxPixelCount: 400_000_000)) }
        #expect(message?.contains("16384×12544") == true, "\(message ?? "nil")")
    }

    @Test("a grid descriptor one pixel wider than ispe is refused before libheif decodes")
    func descriptorDisagrees() throws {
        let data = try Self.patched("rgb8") { data, offset in data[offset + 5] = 65 }
        #expect(throws: ImageError.self) { try HEIFCoder().decode(data, options: .init()) }
        let message = Self.undecodableMessage { try HEIFCoder().decode(data, options: .init()) }
        #expect(message?.contains("declares") == true, "\(message ?? "nil")")
    }

    @Test("a grid of 2×1 cells with one tile is refused")
    func missingTile() throws {
        let data = try Self.patched("rgb8") { data, offset in data[offset + 2] = 1 }
        let message = Self.undecodableMessage { try HEIFCoder().decode(data, options: .init()) }
        #expect(message?.contains("tiles") == true, "\(message ?? "nil")")
    }

    @Test("a grid whose tile covers less than the output is refused")
    func tileTooSmall() throws {
        // Grow the grid and its ispe together so only the tile disagrees.
        var data = try Self.patched("rgb8") { data, offset in data[offset + 4] = 1 } // width 256 + 64
        let ispe = try #require(data.range(of: Data("ispe".utf8)))
        // The primary's ispe is the one declaring 64×48 that is associated with the grid;
        // patch every 64×48 ispe so the grid's matches its descriptor.
        var searchFrom = ispe.lowerBound
        while let found = data.range(of: Data("ispe".utf8), in: searchFrom..<data.count) {
            let width = found.upperBound + 4
            if data[width + 2] == 0, data[width + 3] == 64, data[width + 7] == 48 { data[width + 2] = 1 }
            searchFrom = found.upperBound
        }
        let message = Self.undecodableMessage { try HEIFCoder().decode(data, options: .init()) }
        #expect(message != nil)
    }

    @Test("every prefix of every fixture: the reader throws a typed error or reads, never traps", arguments: fixtures)
    func truncated(name: String) throws {
        let data = try HEIFFixture.data("\(name).heic")
        var failures = 0
        for length in 0..<data.count {
            data.prefix(length).withUnsafeBytes { bytes in
                do {
                    try HEIFItemTable(reading: bytes).checkDerivedImage(maxPixelCount: 100_000_000)
                } catch {
                    failures += 1
                }
            }
        }
        // Any cut before the meta box ends loses the items the check needs.
        #expect(failures > data.count / 4)
    }

    @Test("every byte of the meta box flipped: decode gives an image or a typed error", arguments: ["rgb8", "rgba8"])
    func flipped(name: String) throws {
        let data = try HEIFFixture.data("\(name).heic")
        let meta = try #require(data.range(of: Data("meta".utf8)))
        let mdat = try #require(data.range(of: Data("mdat".utf8)))
        var decoded = 0
        for offset in meta.upperBound..<mdat.lowerBound {
            var mutated = data
            mutated[offset] ^= 0xFF
            do {
                _ = try HEIFCoder().decode(mutated, options: .init(maxPixelCount: 4_000_000))
                decoded += 1
            } catch is ImageError {
            }
        }
        #expect(decoded < mdat.lowerBound - meta.upperBound)
    }

    private static func undecodableMessage(_ body: () throws -> Image) -> String? {
        do {
            _ = try body()
        } catch let error as ImageError {
            if case .undecodable(.heic, let message) = error { return message }
        } catch {}
        return nil
    }
}

@Suite("HEIFCoder declared size and structure limits", .timeLimit(.minutes(1)))
struct HEIFCoderDeclaredSizeTests {
    @Test("declaredSize reads the primary's ispe without libheif; junk gives nil")
    func declaredSize() throws {
        #expect(HEIFCoder().declaredSize(of: try HEIFFixture.data("rgb8.heic")) == PixelSize(width: 64, height: 48))
        #expect(ImageCoderRegistry.allFormats.declaredSize(of: try HEIFFixture.data("rgba8.heic")) == PixelSize(width: 64, height: 48))
        #expect(HEIFCoder().declaredSize(of: Data("not a heif file".utf8)) == nil)
    }

    @Test("checkStructureLimits refuses the crash finding and passes a valid file")
    func structureLimits() throws {
        try HEIFCoder().checkStructureLimits(of: try HEIFFixture.data("rgb8.heic"), options: .init())
        #expect(throws: ImageError.self) {
            try HEIFCoder().checkStructureLimits(of: fixture("fuzz", "heic-libheif-open-finding.heic"), options: .init())
        }
    }
}
