import Foundation
import Testing
@testable import AsyncWebImage

/// A reference decode written by another tool as an 8-bit RGBA PAM file
/// (`dwebp -pam`, ImageMagick `pam:`), and the comparisons the coder
/// tests make against it.
struct PAMReference {
    let width: Int
    let height: Int
    /// RGBA, straight alpha, rows top to bottom.
    let rgba: [UInt8]

    /// Reads `Fixtures/<folder>/<name>.pam`.
    init(_ folder: String, _ name: String) throws {
        try self.init(bytes: [UInt8](fixture(folder, name + ".pam")))
    }

    /// Reads the PAM file at `path` (one a tool wrote during the test).
    init(path: String) throws {
        try self.init(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    /// Reads a PAM file's bytes.
    init(data encoded: Data) throws {
        try self.init(bytes: [UInt8](encoded))
    }

    /// Parses a PAM file's bytes.
    init(bytes data: [UInt8]) throws {
        let marker = Array("ENDHDR\n".utf8)
        let end = try #require((0...(data.count - marker.count)).first { data[$0..<($0 + marker.count)].elementsEqual(marker) })
        var fields: [String: String] = [:]
        for line in String(decoding: data[..<end], as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        width = try #require(fields["WIDTH"].flatMap { Int($0) })
        height = try #require(fields["HEIGHT"].flatMap { Int($0) })
        try #require(fields["DEPTH"] == "4" && fields["MAXVAL"] == "255")
        rgba = Array(data[(end + marker.count)...])
        try #require(rgba.count == width * height * 4)
    }

    /// `image`'s pixels widened to RGBA (opaque when it has no alpha).
    static func rgba(_ image: Image) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(image.width * image.height * 4)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image.pixel(x: x, y: y) ?? []
                switch image.pixelFormat {
                case .gray8: out += [p[0], p[0], p[0], 255]
                case .grayAlpha8: out += [p[0], p[0], p[0], p[1]]
                case .rgb8: out += [p[0], p[1], p[2], 255]
                case .rgba8: out += p
                }
            }
        }
        return out
    }

    /// The largest channel difference between `image` and the reference,
    /// or `nil` when the sizes differ. The colour of a pixel both call fully
    /// transparent does not count (tools leave different colours there).
    func maximumDifference(from image: Image) -> Int? {
        guard image.width == width, image.height == height else { return nil }
        let ours = Self.rgba(image)
        var worst = 0
        for index in stride(from: 0, to: ours.count, by: 4) {
            if ours[index + 3] == 0 && rgba[index + 3] == 0 { continue }
            for channel in 0..<4 {
                worst = max(worst, abs(Int(ours[index + channel]) - Int(rgba[index + channel])))
            }
        }
        return worst
    }
}
