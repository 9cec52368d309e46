import Foundation
@testable import AsyncWebImage

/// The committed JPEG fixtures (`Fixtures/jpeg`, made by
/// `Fixtures/make-jpeg-fixtures.sh`) and their djpeg reference decodes.
enum JPEGFixtures {
    /// Failure to find or parse a fixture: a broken checkout, not a codec bug.
    struct Missing: Error, CustomStringConvertible {
        var description: String
    }

    /// The bytes of `Fixtures/jpeg/<name>`.
    static func data(_ name: String) throws -> Data {
        guard let root = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            throw Missing(description: "no Fixtures folder in the test bundle")
        }
        return try Data(contentsOf: root.appendingPathComponent("jpeg").appendingPathComponent(name))
    }

    /// A binary PPM (P6) or PGM (P5) reference, as an `Image`.
    static func reference(_ name: String) throws -> Image {
        try pnm([UInt8](try data(name)), name: name)
    }

    /// A binary PPM (P6) or PGM (P5) file's `bytes` (djpeg's output), as an `Image`.
    static func pnm(_ bytes: [UInt8], name: String = "PNM data") throws -> Image {
        // Header: magic, width, height, maxval, each separated by whitespace,
        // then exactly one whitespace byte before the samples (djpeg writes no comments).
        var fields: [String] = []
        var index = 0
        while fields.count < 4, index < bytes.count {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 { index += 1 }
            var field = ""
            while index < bytes.count, ![0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) {
                field.append(Character(UnicodeScalar(bytes[index])))
                index += 1
            }
            fields.append(field)
        }
        index += 1
        guard fields.count == 4, let width = Int(fields[1]), let height = Int(fields[2]), fields[3] == "255" else {
            throw Missing(description: "\(name) is not an 8-bit PNM: \(fields)")
        }
        let format: PixelFormat
        switch fields[0] {
        case "P6": format = .rgb8
        case "P5": format = .gray8
        default: throw Missing(description: "\(name): unsupported PNM type \(fields[0])")
        }
        return try Image(width: width, height: height, pixelFormat: format, pixels: Array(bytes[index...]))
    }

    /// `data` with the frame header's height and width replaced.
    static func withDeclaredSize(_ data: Data, width: Int, height: Int) throws -> Data {
        var bytes = [UInt8](data)
        // Walk the segments to the first SOFn (C0–CF except C4, C8, CC).
        var at = 2
        while at + 4 <= bytes.count {
            guard bytes[at] == 0xFF else { throw Missing(description: "lost sync at \(at)") }
            let marker = bytes[at + 1]
            let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                bytes[at + 5] = UInt8(height >> 8)
                bytes[at + 6] = UInt8(height & 0xFF)
                bytes[at + 7] = UInt8(width >> 8)
                bytes[at + 8] = UInt8(width & 0xFF)
                return Data(bytes)
            }
            at += 2 + length
        }
        throw Missing(description: "no SOF marker")
    }

    /// The mean absolute difference of all channels in rows `rows`, or `nil`
    /// when sizes or formats differ.
    static func meanDifference(_ a: Image, _ b: Image, rows: Range<Int>) -> Double? {
        guard a.size == b.size, a.pixelFormat == b.pixelFormat else { return nil }
        let rowBytes = a.width * a.pixelFormat.bytesPerPixel
        let (pa, pb) = (a.pixels, b.pixels)
        var total = 0
        for y in rows {
            for i in 0..<rowBytes {
                total += abs(Int(pa[y * a.bytesPerRow + i]) - Int(pb[y * b.bytesPerRow + i]))
            }
        }
        return Double(total) / Double(max(1, rowBytes * rows.count))
    }
}
