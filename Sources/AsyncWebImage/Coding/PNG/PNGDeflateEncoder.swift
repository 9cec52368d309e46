import CDeflate
import Foundation

/// Writes an 8-bit PNG itself, compressing the filtered rows with libdeflate
/// in one call instead of zlib's streaming deflate.
///
/// libspng only compresses through zlib, row by row; libdeflate compresses a
/// whole buffer at once, faster than zlib and smaller at the same level. The
/// filter choice is the usual adaptive one (libspng's and libpng's): for each
/// row the filter whose output has the smallest sum of absolute signed bytes.
/// Chunks: IHDR, then `iCCP` or `sRGB`, `eXIf`, the IDAT chunks, IEND.
struct PNGDeflateEncoder {
    /// The PNG colour type byte (0 grey, 2 RGB, 4 grey + alpha, 6 RGBA).
    var colorType: UInt8
    /// libdeflate's level (0 stores, 1 fastest … 12 smallest); see ``libdeflateLevel(forZlibLevel:)``.
    var level: Int
    /// An `iCCP` profile to embed, if any.
    var iccProfile: Data?
    /// Whether to write an `sRGB` chunk (perceptual) when there is no profile.
    var declaresSRGB: Bool
    /// An `eXIf` payload (a TIFF), empty for none.
    var exif: [UInt8]

    /// The libdeflate level for `zlibLevel` (0...9): the same number.
    ///
    /// libdeflate's levels 1–9 are the same kind of search as zlib's (greedy,
    /// then lazy matching); 10–12 are its near-optimal parsing. Measured on
    /// 256 px thumbnails of real wallpapers (`scripts/real-photos`), level 6
    /// gives 2–15 % smaller output than zlib 6 in 0.4× its time, while level
    /// 10 saves another 2 % at 1.8–2.6× zlib's time — too dear for a server
    /// that encodes every response. On the 640×480 photo fixture libdeflate is
    /// up to 2.5 % larger than zlib at level 6 and 4 % at level 4, 7–9 %
    /// smaller at 1–3 (`PNGDeflateEncoderTests` bounds it at 5 % larger).
    static func libdeflateLevel(forZlibLevel zlibLevel: Int) -> Int {
        min(max(zlibLevel, 0), 9)
    }

    /// The largest IDAT chunk written; PNG allows 2³¹ − 1, readers stream them.
    static let maxIDATLength = 1 << 20

    /// Encodes `height` rows of `rowBytes` bytes, `bytesPerRow` apart, with
    /// `bytesPerPixel` bytes per pixel.
    func encode(
        _ pixels: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int, bytesPerPixel: Int
    ) throws -> Data {
        let rowBytes = width * bytesPerPixel
        guard let base = pixels.baseAddress, width > 0, height > 0 else { throw ImageError.encodingFailed(.png, "empty image") }
        let filtered = Self.filter(base, rowBytes: rowBytes, height: height, bytesPerRow: bytesPerRow, bytesPerPixel: bytesPerPixel, adaptive: level > 0)
        let compressed = try filtered.withUnsafeBytes { bytes in try Self.zlib(bytes, level: level) }

        var png = Data(capacity: compressed.count + 256 + (iccProfile?.count ?? 0))
        png.append(contentsOf: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var ihdr = [UInt8]()
        ihdr.appendBigEndian(UInt32(width))
        ihdr.appendBigEndian(UInt32(height))
        ihdr += [8, colorType, 0, 0, 0] // depth, colour type, deflate, adaptive filtering, no interlace
        Self.appendChunk("IHDR", ihdr, to: &png)
        if let iccProfile, !iccProfile.isEmpty {
            var iccp = Array("ICC profile".utf8) + [0, 0] // name, NUL, compression method 0
            iccp += try iccProfile.withUnsafeBytes { bytes in try Self.zlib(bytes, level: max(level, 1)) }
            Self.appendChunk("iCCP", iccp, to: &png)
        } else if declaresSRGB {
            Self.appendChunk("sRGB", [0], to: &png)
        }
        if !exif.isEmpty { Self.appendChunk("eXIf", exif, to: &png) }
        var offset = 0
        repeat {
            let end = min(compressed.count, offset + Self.maxIDATLength)
            Self.appendChunk("IDAT", compressed[offset..<end], to: &png)
            offset = end
        } while offset < compressed.count
        Self.appendChunk("IEND", [], to: &png)
        return png
    }

    /// Appends length, type, data and CRC (libdeflate's, over type and data).
    private static func appendChunk(_ type: String, _ body: some Collection<UInt8>, to png: inout Data) {
        var header = [UInt8]()
        header.appendBigEndian(UInt32(body.count))
        let typeBytes = Array(type.utf8)
        header += typeBytes
        png.append(contentsOf: header)
        let start = png.count - 4
        png.append(contentsOf: body)
        let crc = png.withUnsafeBytes { bytes in
            CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[start...]))
        }
        var trailer = [UInt8]()
        trailer.appendBigEndian(crc)
        png.append(contentsOf: trailer)
    }

    /// A zlib stream of `bytes` at `level`.
    private static func zlib(_ bytes: UnsafeRawBufferPointer, level: Int) throws(ImageError) -> [UInt8] {
        guard let compressor = libdeflate_alloc_compressor(Int32(min(max(level, 0), 12))) else {
            throw .encodingFailed(.png, "libdeflate could not allocate a compressor")
        }
        defer { libdeflate_free_compressor(compressor) }
        let bound = libdeflate_zlib_compress_bound(compressor, bytes.count)
        var written = 0
        let output = [UInt8](unsafeUninitializedCapacity: bound) { buffer, count in
            written = libdeflate_zlib_compress(compressor, bytes.baseAddress, bytes.count, buffer.baseAddress, bound)
            count = written
        }
        // The bound is libdeflate's worst case, so 0 (no room) cannot happen; checked anyway.
        guard written > 0 else { throw .encodingFailed(.png, "libdeflate compression failed") }
        return output
    }

    /// Every row preceded by its filter byte. `adaptive` false writes filter
    /// 0 (None) everywhere, as level 0 (stored) output does in libspng.
    static func filter(
        _ base: UnsafeRawPointer, rowBytes: Int, height: Int, bytesPerRow: Int, bytesPerPixel bpp: Int, adaptive: Bool
    ) -> [UInt8] {
        let stride = rowBytes + 1
        return [UInt8](unsafeUninitializedCapacity: stride * height) { output, count in
            let zeros = [UInt8](repeating: 0, count: rowBytes)
            var candidate = [UInt8](repeating: 0, count: rowBytes)
            zeros.withUnsafeBufferPointer { zeros in
                candidate.withUnsafeMutableBufferPointer { candidate in
                    for y in 0..<height {
                        let row = UnsafeBufferPointer(start: (base + y * bytesPerRow).assumingMemoryBound(to: UInt8.self), count: rowBytes)
                        let above = y == 0 ? zeros : UnsafeBufferPointer(start: (base + (y - 1) * bytesPerRow).assumingMemoryBound(to: UInt8.self), count: rowBytes)
                        let out = UnsafeMutableBufferPointer(rebasing: output[(y * stride + 1)..<((y + 1) * stride)])
                        guard adaptive else {
                            output[y * stride] = 0
                            _ = out.initialize(from: row)
                            continue
                        }
                        var best = UInt8(0)
                        var bestCost = Int.max
                        for type in UInt8(0)...4 {
                            let cost = apply(type, row: row, above: above, bpp: bpp, into: candidate, limit: bestCost)
                            if cost < bestCost {
                                bestCost = cost
                                best = type
                                _ = out.update(fromContentsOf: candidate)
                            }
                        }
                        output[y * stride] = best
                    }
                }
            }
            count = stride * height
        }
    }

    /// Filters `row` with filter `type` into `out`; returns the sum of the
    /// output bytes read as signed magnitudes (stops early past `limit`).
    private static func apply(
        _ type: UInt8, row: UnsafeBufferPointer<UInt8>, above: UnsafeBufferPointer<UInt8>, bpp: Int,
        into out: UnsafeMutableBufferPointer<UInt8>, limit: Int
    ) -> Int {
        var cost = 0
        for i in 0..<row.count {
            let x = row[i]
            let a = i >= bpp ? row[i - bpp] : 0
            let b = above[i]
            let value: UInt8
            switch type {
            case 0: value = x
            case 1: value = x &- a
            case 2: value = x &- b
            case 3: value = x &- UInt8((UInt16(a) + UInt16(b)) >> 1)
            default:
                let c = i >= bpp ? above[i - bpp] : 0
                value = x &- paeth(a, b, c)
            }
            out[i] = value
            cost += value < 128 ? Int(value) : 256 - Int(value)
            if cost >= limit { return cost }
        }
        return cost
    }

    /// The Paeth predictor of PNG's filter type 4.
    @inline(__always)
    private static func paeth(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt8 {
        let p = Int(a) + Int(b) - Int(c)
        let pa = abs(p - Int(a)), pb = abs(p - Int(b)), pc = abs(p - Int(c))
        if pa <= pb && pa <= pc { return a }
        return pb <= pc ? b : c
    }
}

extension [UInt8] {
    /// Appends `value` in network byte order.
    mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)])
    }
}
