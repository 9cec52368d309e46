import AsyncWebImage
import Foundation

/// `thumbnail-rss SIZE WARMUP FILE [full]`: the peak resident growth of one
/// thumbnail, in a process of its own so no earlier test's pages count.
/// Thumbnails WARMUP (the codecs' one-time setup), resets the kernel's peak
/// (`/proc/self/clear_refs`), thumbnails FILE and prints
/// "rss BEFORE hwm PEAK" in bytes. With `full`, the route a thumbnail took
/// before coders resampled while decoding: the full-size decode, then the
/// same resample (the control the memory test compares with).
enum ThumbnailPeak {
    static func run(_ arguments: [String]) -> Int32 {
        guard arguments.count == 3 || (arguments.count == 4 && arguments[3] == "full"), let side = Int(arguments[0]), side > 0,
              let warmup = FileManager.default.contents(atPath: arguments[1]),
              let data = FileManager.default.contents(atPath: arguments[2])
        else {
            FileHandle.standardError.write(Data("usage: awi-allocator-probe thumbnail-rss SIZE WARMUP FILE [full]\n".utf8))
            return 2
        }
        let registry = ImageCoderRegistry.builtIn
        let options = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: side, height: side))
        let fullRoute = arguments.count == 4
        func thumbnail(_ data: Data) throws -> PixelSize {
            guard fullRoute else { return try registry.decode(data, options: options).size }
            let full = try registry.decode(data, options: .init())
            guard let target = options.targetSize(forStored: full.size, orientation: full.orientation) else { return full.size }
            return full.resampled(to: target).size
        }
        do {
            _ = try thumbnail(warmup)
            guard resetPeak(), let before = statusBytes("VmRSS:") else { return 3 }
            _ = try thumbnail(data)
            guard let peak = statusBytes("VmHWM:") else { return 3 }
            print("rss \(before) hwm \(peak)")
            return 0
        } catch {
            FileHandle.standardError.write(Data("decode failed: \(error)\n".utf8))
            return 1
        }
    }

    /// Linux ≥ 4.0 resets VmHWM to VmRSS on "5" in clear_refs.
    private static func resetPeak() -> Bool {
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "5", 1) == 1
    }

    /// One `kB` field of /proc/self/status, in bytes.
    private static func statusBytes(_ field: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
              let kib = Int(line.dropFirst(field.count).split(whereSeparator: \.isWhitespace).first ?? "")
        else { return nil }
        return kib * 1024
    }
}
