import Foundation

/// Reads the ICC profile a JPEG embeds: APP2 segments starting with
/// `ICC_PROFILE\0`, a sequence number (1-based) and a chunk count, then a
/// piece of the profile, reassembled in sequence order.
///
/// TurboJPEG 2.1 has no ICC API, so the markers before the first scan are
/// walked here: a walk of segment headers, bounded by the data, that stops at
/// the first SOS (where the profile must have been) or at anything malformed.
enum JPEGICCProfileReader {
    /// The 12-byte signature of an ICC APP2 segment.
    static let signature: [UInt8] = Array("ICC_PROFILE".utf8) + [0]

    /// The most profile bytes one APP2 segment carries (65535 minus the
    /// length field, the signature, the sequence number and the count).
    static let maximumChunkBytes = 65_535 - 2 - 14

    /// The embedded profile: `nil` when there is none, ``EmbeddedColorProfile/icc(_:)``
    /// when its chunks are all there, ``EmbeddedColorProfile/unreadable(_:)``
    /// when chunks are missing, repeated or disagree on their count, or
    /// when they add up to more than `limit` bytes (nothing beyond the limit
    /// is copied).
    static func profile(in jpeg: UnsafeRawBufferPointer, limit: Int) -> EmbeddedColorProfile? {
        var chunks: [Int: Range<Int>] = [:]
        var declaredCount: Int?
        var total = 0
        var problem: String?
        var offset = 2
        walk: while offset + 4 <= jpeg.count {
            guard jpeg[offset] == 0xFF else { break }
            let marker = jpeg[offset + 1]
            switch marker {
            case 0xFF: offset += 1; continue walk // fill byte
            case 0x01, 0xD0...0xD8: offset += 2; continue walk // no length
            case 0xD9, 0xDA: break walk // end of image, start of scan
            default: break
            }
            let length = Int(jpeg[offset + 2]) << 8 | Int(jpeg[offset + 3])
            let end = offset + 2 + length
            guard length >= 2, end <= jpeg.count else { break }
            let body = (offset + 4)..<end
            if marker == 0xE2, body.count >= 14, jpeg[body.prefix(12)].elementsEqual(signature) {
                let sequence = Int(jpeg[body.lowerBound + 12]), count = Int(jpeg[body.lowerBound + 13])
                let data = (body.lowerBound + 14)..<end
                if sequence == 0 || count == 0 || sequence > count {
                    problem = problem ?? "ICC chunk \(sequence) of \(count)"
                } else if let declared = declaredCount, declared != count {
                    problem = problem ?? "ICC chunks disagree on their count (\(declared) and \(count))"
                } else if chunks[sequence] != nil {
                    problem = problem ?? "ICC chunk \(sequence) appears twice"
                } else {
                    declaredCount = count
                    total += data.count
                    if total > limit {
                        return .unreadable("the ICC profile is larger than the \(limit)-byte limit")
                    }
                    chunks[sequence] = data
                }
            }
            offset = end
        }
        if let problem { return .unreadable(problem) }
        guard let declaredCount else { return nil }
        guard chunks.count == declaredCount else {
            return .unreadable("ICC profile truncated: \(chunks.count) of \(declaredCount) chunks")
        }
        var profile = Data(capacity: total)
        for sequence in 1...declaredCount {
            profile.append(contentsOf: UnsafeRawBufferPointer(rebasing: jpeg[chunks[sequence]!]))
        }
        return .icc(profile)
    }

    /// The APP2 segments that embed `profile` in a JPEG, in order; empty for
    /// a profile too large for 255 chunks.
    static func segments(for profile: Data) -> [UInt8] {
        let count = (profile.count + maximumChunkBytes - 1) / maximumChunkBytes
        guard count > 0, count <= 255 else { return [] }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(profile.count + count * 18)
        for index in 0..<count {
            let start = profile.startIndex + index * maximumChunkBytes
            let chunk = profile[start..<min(start + maximumChunkBytes, profile.endIndex)]
            let length = 2 + 14 + chunk.count
            bytes += [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)]
            bytes += signature
            bytes += [UInt8(index + 1), UInt8(count)]
            bytes += chunk
        }
        return bytes
    }
}
