import Foundation
import Testing
@testable import AsyncWebImage

@Suite("JPEGMarkerScanner", .timeLimit(.minutes(1)))
struct JPEGMarkerScannerTests {
    /// Scans `bytes` in one pass.
    static func scan(_ bytes: [UInt8], stopAtFirstScan: Bool = false) throws -> JPEGMarkerScanner {
        var scanner = JPEGMarkerScanner()
        try bytes.withUnsafeBytes { try scanner.advance($0, stopAtFirstScan: stopAtFirstScan) }
        return scanner
    }

    @Test("every chunking reaches the same scanner state as one pass")
    func incrementalScanning() throws {
        // Given the progressive file scanned in one pass
        let data = try JPEGFixtures.data("large-progressive.jpg")
        var whole = JPEGMarkerScanner()
        try data.withUnsafeBytes { try whole.advance($0) }
        #expect(whole.completedScans == 10)
        #expect(whole.sawEndOfImage)
        #expect(whole.frame == JPEGMarkerScanner.Frame(marker: 0xC2, size: PixelSize(width: 640, height: 480), components: [
            .init(id: 1, horizontal: 2, vertical: 2), .init(id: 2, horizontal: 1, vertical: 1, quantizationTable: 1),
            .init(id: 3, horizontal: 1, vertical: 1, quantizationTable: 1),
        ]))
        #expect(whole.frame?.isProgressive == true)
        // When scanned in chunks of 1, 7 and 1000 bytes
        for chunk in [1, 7, 1000] {
            var scanner = JPEGMarkerScanner()
            var previousOffset = 0
            for end in stride(from: chunk, through: data.count + chunk - 1, by: chunk) {
                try data.prefix(min(end, data.count)).withUnsafeBytes { try scanner.advance($0) }
                // never stepping back, so never rescanning
                #expect(scanner.offset >= previousOffset)
                previousOffset = scanner.offset
            }
            // Then it ends in the same state
            #expect(scanner.completedScans == whole.completedScans)
            #expect(scanner.completedEntropyBytes == whole.completedEntropyBytes)
            #expect(scanner.completedScansEnd == whole.completedScansEnd)
            #expect(scanner.sawEndOfImage)
        }
    }

    @Test("records every scan: its byte range, first coefficient and components")
    func recordsScans() throws {
        // Given the 10-scan progressive file (libjpeg's default progression)
        let bytes = [UInt8](try JPEGFixtures.data("large-progressive.jpg"))
        var scanner = JPEGMarkerScanner(recordingScans: true)
        try bytes.withUnsafeBytes { try scanner.advance($0) }
        // Then each scan is listed, in order, starting at an SOS marker
        #expect(scanner.scansAreComplete)
        #expect(scanner.scans.count == 10)
        #expect(scanner.scans.allSatisfy { bytes[$0.range.lowerBound] == 0xFF && bytes[$0.range.lowerBound + 1] == 0xDA })
        #expect(zip(scanner.scans, scanner.scans.dropFirst()).allSatisfy { $0.range.upperBound <= $1.range.lowerBound })
        // The first is the interleaved DC scan; AC scans cover one component each
        #expect(scanner.scans[0].spectralStart == 0 && scanner.scans[0].componentIDs == [1, 2, 3])
        #expect(scanner.scans.filter { $0.spectralStart > 0 }.allSatisfy { $0.componentIDs.count == 1 })
        #expect(scanner.scans.filter { $0.spectralStart == 0 }.count == 2) // DC first pass and refinement
        // and libjpeg's own tables are all defined and well-formed
        #expect(scanner.scans.allSatisfy { $0.hasValidProgressiveParameters && $0.acTablesUsable && $0.quantizationTablesDefined })
        #expect(scanner.endOfImageOffset == bytes.count - 2)
        // And a scanner that does not record lists nothing
        let plain = try Self.scan(bytes)
        #expect(plain.scans.isEmpty && !plain.scansAreComplete)
    }

    @Test("restart markers and stuffed bytes stay inside the scan")
    func restartMarkers() throws {
        // Given a baseline file with a restart marker after every MCU row
        let bytes = [UInt8](try JPEGFixtures.data("baseline-restart.jpg"))
        let restarts = (0..<(bytes.count - 1)).filter { bytes[$0] == 0xFF && (0xD0...0xD7).contains(bytes[$0 + 1]) }
        #expect(restarts.count >= 3)
        // When scanned
        let scanner = try Self.scan(bytes)
        // Then there is one scan, ending right before EOI
        #expect(scanner.completedScans == 1)
        #expect(scanner.sawEndOfImage)
        #expect(scanner.completedScansEnd == bytes.count - 2)
        #expect(scanner.frame?.isProgressive == false)
        #expect(scanner.frame?.components.count == 3)
    }

    @Test("fill bytes and junk between segments are skipped, as libjpeg does")
    func junkBetweenSegments() throws {
        // Given a file with junk and FF fill bytes before its SOS marker
        let bytes = [UInt8](try JPEGFixtures.data("progressive.jpg"))
        let clean = try Self.scan(bytes)
        let sos = try #require((0..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        let damaged = Array(bytes[..<sos]) + [0x00, 0x42, 0xFF, 0xFF, 0xFF] + Array(bytes[sos...])
        // When scanned, then it sees the same structure
        let scanner = try Self.scan(damaged)
        #expect(scanner.completedScans == clean.completedScans)
        #expect(scanner.completedEntropyBytes == clean.completedEntropyBytes)
        #expect(scanner.frame == clean.frame)
        #expect(scanner.sawEndOfImage)
    }

    @Test("reads the frame and the orientation, and can stop at the first scan")
    func headersOnly() throws {
        let scanner = try Self.scan([UInt8](try JPEGFixtures.data("orientation-6.jpg")), stopAtFirstScan: true)
        #expect(scanner.orientation == .right)
        #expect(scanner.frame == JPEGMarkerScanner.Frame(marker: 0xC0, size: PixelSize(width: 40, height: 64), components: [
            .init(id: 1, horizontal: 1, vertical: 1), .init(id: 2, horizontal: 1, vertical: 1, quantizationTable: 1),
            .init(id: 3, horizontal: 1, vertical: 1, quantizationTable: 1),
        ]))
        #expect(scanner.frame?.isProgressive == false)
        #expect(scanner.phase == .entropy)
        #expect(scanner.completedScans == 0)
        let gray = try Self.scan([UInt8](try JPEGFixtures.data("gray.jpg")))
        #expect(gray.frame?.components.count == 1)
        #expect(gray.orientation == nil)
    }

    @Test("counts entropy-coded bytes while a scan arrives")
    func entropyProgress() throws {
        let bytes = [UInt8](try JPEGFixtures.data("large.jpg"))
        var scanner = JPEGMarkerScanner()
        try bytes[..<5000].withUnsafeBytes { try scanner.advance($0) }
        let early = scanner.entropyBytes(receivedCount: 5000)
        try bytes[..<20000].withUnsafeBytes { try scanner.advance($0) }
        let later = scanner.entropyBytes(receivedCount: 20000)
        #expect(early > 0 && later - early == 15000)
        try bytes.withUnsafeBytes { try scanner.advance($0) }
        #expect(scanner.entropyBytes(receivedCount: bytes.count) == scanner.completedEntropyBytes)
        #expect(scanner.completedEntropyBytes > 25_000 && scanner.completedEntropyBytes < bytes.count)
    }

    @Test("refuses what cannot be JPEG, waits on what is merely short")
    func malformed() throws {
        #expect(throws: ImageError.undecodable(.jpeg, "not JPEG data (no SOI marker)")) { try Self.scan(Array("<html>".utf8)) }
        #expect(throws: ImageError.self) { try Self.scan([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01]) }
        // Short data is not an error: the scanner waits for more.
        let short = try Self.scan([0xFF, 0xD8, 0xFF, 0xE1, 0x10])
        #expect(short.phase == .segments && short.frame == nil)
        #expect(try Self.scan([0xFF]).phase == .start)
        // Random bytes after a signature: errors or waiting, never a trap or a loop.
        var generator = SeededGenerator(seed: 0x4D41_524B) // seeded: a failure reproduces
        for _ in 0..<200 {
            let noise = [0xFF, 0xD8] + (0..<512).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = try? Self.scan(noise)
        }
    }

    @Test("counts 8×8 blocks as libjpeg does and floors the bytes of Huffman-coded frames only")
    func minimumByteCount() throws {
        typealias Frame = JPEGMarkerScanner.Frame
        let yuv420: [JPEGMarkerScanner.Component] = [
            .init(id: 1, horizontal: 2, vertical: 2), .init(id: 2, horizontal: 1, vertical: 1), .init(id: 3, horizontal: 1, vertical: 1),
        ]
        // Given 10000×10000 4:2:0: luma 1250×1250 blocks, chroma 625×625 each
        let large = Frame(marker: 0xC2, size: PixelSize(width: 10_000, height: 10_000), components: yuv420)
        #expect(large.blockCount == 1_562_500 + 2 * 390_625)
        // Then progressive Huffman needs 1 bit per block, sequential 2, arithmetic and lossless nothing
        #expect(large.minimumByteCount == 292_968)
        for marker: UInt8 in [0xC0, 0xC1] {
            #expect(Frame(marker: marker, size: large.size, components: yuv420).minimumByteCount == 585_937)
        }
        for marker: UInt8 in [0xC3, 0xC9, 0xCA, 0xCB] {
            #expect(Frame(marker: marker, size: large.size, components: yuv420).minimumByteCount == nil)
        }
        // Given 17×9 4:2:0: luma ⌈34/16⌉×⌈18/16⌉ = 3×2, chroma ⌈17/16⌉×⌈9/16⌉ = 2×1 each
        // (not the 4×2 luma blocks of the padded MCUs)
        #expect(Frame(marker: 0xC0, size: PixelSize(width: 17, height: 9), components: yuv420).blockCount == 6 + 2 + 2)
        // Given 4:2:2 (2×1, 1×1, 1×1) at 33×17: luma 5×3, chroma 3×3 each
        let yuv422: [JPEGMarkerScanner.Component] = [
            .init(id: 1, horizontal: 2, vertical: 1), .init(id: 2, horizontal: 1, vertical: 1), .init(id: 3, horizontal: 1, vertical: 1),
        ]
        #expect(Frame(marker: 0xC0, size: PixelSize(width: 33, height: 17), components: yuv422).blockCount == 15 + 9 + 9)
        // Given grey 2049×2047: 257×256
        let gray = Frame(marker: 0xC2, size: PixelSize(width: 2049, height: 2047), components: [.init(id: 1, horizontal: 1, vertical: 1)])
        #expect(gray.blockCount == 257 * 256)
        #expect(gray.minimumByteCount == 257 * 256 / 8)
        // And sampling factors of 0 (which libjpeg refuses) do not divide by zero
        #expect(Frame(marker: 0xC0, size: PixelSize(width: 16, height: 16), components: [.init(id: 1, horizontal: 0, vertical: 0)]).blockCount == 0)
    }

    @Test("progression parameters are judged as libjpeg judges them", arguments: [
        // (Ss, Se, Ah, Al, components, valid)
        (0, 0, 0, 1, 3, true),     // DC first scan, interleaved
        (0, 5, 0, 0, 1, false),    // a DC scan must end at 0
        (1, 5, 0, 2, 1, true),     // AC first scan
        (6, 63, 2, 1, 1, true),    // AC refinement one bit down
        (6, 63, 3, 3, 1, false),   // refinement that does not lower the bit (the fuzz finding)
        (6, 63, 2, 0, 1, false),   // refinement two bits down
        (9, 5, 0, 0, 1, false),    // Ss > Se
        (1, 64, 0, 0, 1, false),   // Se past the last coefficient
        (1, 63, 0, 0, 2, false),   // an AC scan of two components
        (1, 63, 0, 13, 1, true),   // Al = 13 is the largest libjpeg takes
        (1, 63, 0, 14, 1, false),
    ])
    func progressionParameters(_ values: (Int, Int, Int, Int, Int, Bool)) {
        let (start, end, high, low, components, valid) = values
        let scan = JPEGMarkerScanner.Scan(
            range: 0..<1, spectralStart: start, spectralEnd: end,
            approximationHigh: high, approximationLow: low, componentIDs: Array(1...UInt8(components)),
            acTablesUsable: true, quantizationTablesDefined: true
        )
        #expect(scan.hasValidProgressiveParameters == valid)
    }

    @Test("an AC scan's Huffman table counts as usable only if defined before it with code lengths libjpeg accepts", arguments: [
        // (code counts by length 1..., table the DHT defines (0x10 | id), table the scan names, usable)
        ([1, 1], 0x10, 0, true),      // codes 0, 10: fits
        ([2], 0x10, 0, false),        // 0 and 1 at length 1: the all-ones code, which libjpeg refuses
        ([1, 3], 0x10, 0, false),     // 0, then three codes of length 2 after it: only 10 and 11 exist
        ([0, 3], 0x10, 0, true),      // 00, 01, 10
        ([1, 1], 0x11, 0, false),     // table 1 defined, table 0 named
        ([1, 1], 0x00, 0, false),     // a DC table 0 is not an AC table
        ([1, 1], 0x10, 7, false),     // table ids above 3 never exist
    ])
    func huffmanTables(_ values: ([UInt8], Int, UInt8, Bool)) throws {
        let (counts, definedIndex, named, usable) = values
        let lengths = counts + [UInt8](repeating: 0, count: 16 - counts.count)
        let symbols = [UInt8](repeating: 0, count: counts.reduce(0) { $0 + Int($1) })
        let dht = [UInt8(definedIndex)] + lengths + symbols
        // SOI, DHT, SOF2 (8×8 grey), SOS (component 1, AC table `named`, Ss 1 Se 63), data, EOI
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xC4, 0, UInt8(2 + dht.count)] + dht
        bytes += [0xFF, 0xC2, 0, 11, 8, 0, 8, 0, 8, 1, 1, 0x11, 0]
        bytes += [0xFF, 0xDA, 0, 8, 1, 1, named, 1, 63, 0, 0x12, 0x34, 0xFF, 0xD9]
        var scanner = JPEGMarkerScanner(recordingScans: true)
        try bytes.withUnsafeBytes { try scanner.advance($0) }
        #expect(scanner.scans.count == 1)
        #expect(scanner.scans.first?.acTablesUsable == usable)
    }

    @Test("a scan's quantisation tables count as defined only when the frame and the DQT came before it")
    func quantizationTables() throws {
        // DQT for table 0 (64 one-byte entries), SOF2 (8×8 grey, table `table`), SOS, EOI
        let dqt: [UInt8] = [0xFF, 0xDB, 0, 67, 0x00] + [UInt8](repeating: 1, count: 64)
        func sof(table: UInt8) -> [UInt8] { [0xFF, 0xC2, 0, 11, 8, 0, 8, 0, 8, 1, 1, 0x11, table] }
        let sos: [UInt8] = [0xFF, 0xDA, 0, 8, 1, 1, 0, 0, 0, 0, 0x12, 0x34]
        let eoi: [UInt8] = [0xFF, 0xD9]
        let cases: [([UInt8], Bool)] = [
            (dqt + sof(table: 0) + sos, true),
            (sof(table: 0) + dqt + sos, true),
            (sof(table: 0) + sos + dqt, false), // the table comes after the scan
            (dqt + sof(table: 1) + sos, false), // the component uses a table never defined
            (dqt + sos + sof(table: 0), false), // the scan comes before the frame header
        ]
        for (segments, defined) in cases {
            var scanner = JPEGMarkerScanner(recordingScans: true)
            try ([0xFF, 0xD8] + segments + eoi).withUnsafeBytes { try scanner.advance($0) }
            #expect(scanner.scans.count == 1)
            #expect(scanner.scans.first?.quantizationTablesDefined == defined)
        }
    }
}
