import Foundation
import Testing
@testable import AsyncWebImage

/// Animated GIFs for the animation tests: made at test time by ImageMagick
/// (with its own decoding as the reference) or byte by byte for hostile cases.
enum AnimationFixtures {
    struct ToolFailed: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `tool` with `arguments`; its standard output.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ToolFailed(description: "\(tool) \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
        }
        return data
    }

    /// ImageMagick's `convert` (the real one, not a wrapper earlier on PATH).
    static let convert = "/usr/bin/convert"
    static let identify = "/usr/bin/identify"

    /// Makes `name` in `directory` with `convert arguments… name`; its bytes.
    static func makeGIF(_ arguments: [String], in directory: TemporaryDirectory, name: String = "anim.gif") throws -> Data {
        let path = directory.appending(name).path
        try run(convert, arguments + [path])
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// ImageMagick's coalesced frames of `file` as RGBA.
    static func coalescedFrames(of file: URL, in directory: TemporaryDirectory) throws -> [PAMReference] {
        let pattern = directory.appending("coalesced-%d.pam").path
        try run(convert, [file.path, "-coalesce", "+adjoin", "-depth", "8", "-type", "TrueColorAlpha", pattern])
        var frames: [PAMReference] = []
        for index in 0..<10_000 {
            let url = directory.appending("coalesced-\(index).pam")
            guard FileManager.default.fileExists(atPath: url.path) else { break }
            frames.append(try PAMReference(data: Data(contentsOf: url)))
        }
        return frames
    }

    /// Each frame's delay in hundredths of a second, as `identify -format %T` reads it.
    static func delays(of file: URL) throws -> [Int] {
        let text = String(decoding: try run(identify, ["-format", "%T\n", file.path]), as: UTF8.self)
        return text.split(separator: "\n").compactMap { Int($0) }
    }

    /// The loop count ImageMagick reads (`Iterations:` of `identify -verbose`, first frame).
    static func iterations(of file: URL) throws -> Int? {
        let text = String(decoding: try run(identify, ["-verbose", file.path + "[0]"]), as: UTF8.self)
        return text.split(separator: "\n").first { $0.contains("Iterations:") }
            .flatMap { Int($0.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)) }
    }

    /// A GIF89a built byte by byte: a `screen`, a 4-colour global table
    /// (red, blue, lime, white), an optional NETSCAPE2.0 loop, and `frames`.
    static func rawGIF(screen: (Int, Int), loop: Int? = nil, frames: [RawFrame]) -> Data {
        var bytes = Array("GIF89a".utf8) + le16(screen.0) + le16(screen.1) + [0x81, 0, 0]
        bytes += [255, 0, 0, 0, 0, 255, 0, 255, 0, 255, 255, 255]
        if let loop {
            bytes += [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1] + le16(loop) + [0]
        }
        for frame in frames {
            let packed = UInt8(frame.disposal << 2) | (frame.transparent == nil ? 0 : 1)
            bytes += [0x21, 0xF9, 4, packed] + le16(frame.delay) + [UInt8(frame.transparent ?? 0), 0]
            bytes += [0x2C] + le16(frame.x) + le16(frame.y) + le16(frame.width) + le16(frame.height) + [0]
            bytes += frame.lzw
        }
        return Data(bytes + [0x3B])
    }

    struct RawFrame {
        var x = 0, y = 0, width = 1, height = 1
        var delay = 10
        var disposal = 1
        var transparent: Int?
        /// LZW minimum code size, sub-blocks, terminator.
        var lzw: [UInt8]

        /// A frame whose every pixel is palette entry `color`, LZW-coded
        /// with a clear code before each pixel (valid, if not compact).
        static func filled(x: Int = 0, y: Int = 0, width: Int, height: Int, color: UInt8, delay: Int = 10, disposal: Int = 1, transparent: Int? = nil) -> RawFrame {
            RawFrame(x: x, y: y, width: width, height: height, delay: delay, disposal: disposal, transparent: transparent,
                     lzw: AnimationFixtures.lzw(pixels: [UInt8](repeating: color, count: width * height)))
        }
    }

    /// Codes `pixels` (indices < 4) with minimum code size 2: each pixel
    /// after a clear code, so every code is 3 bits; then end of information.
    static func lzw(pixels: [UInt8]) -> [UInt8] {
        var codes: [Int] = []
        for pixel in pixels { codes += [4, Int(pixel)] }
        codes.append(5)
        var data: [UInt8] = []
        var accumulator = 0, bits = 0
        for code in codes {
            accumulator |= code << bits
            bits += 3
            while bits >= 8 { data.append(UInt8(accumulator & 0xFF)); accumulator >>= 8; bits -= 8 }
        }
        if bits > 0 { data.append(UInt8(accumulator & 0xFF)) }
        var out: [UInt8] = [2]
        var offset = 0
        while offset < data.count {
            let chunk = data[offset..<min(offset + 255, data.count)]
            out += [UInt8(chunk.count)] + chunk
            offset += chunk.count
        }
        return out + [0]
    }

    static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
}
