/// Reads the `Orientation` tag (0x0112) of IFD0 from a JPEG APP1 Exif
/// segment, and writes the smallest APP1 segment that carries one.
///
/// Every offset comes from the file, so every read is bounds-checked
/// against the segment: a hostile segment yields `nil`, never a trap, and
/// the work is bounded by the segment's size (IFD0 only, no chained IFDs).
enum ExifOrientationReader {
    /// The orientation in an APP1 payload (the bytes after the segment
    /// length, starting with `Exif\0\0`), or `nil` when the payload is not
    /// Exif, is malformed, or has no valid orientation (1–8).
    static func orientation(inAPP1 payload: UnsafeRawBufferPointer) -> ImageOrientation? {
        // "Exif" then two pad bytes, then a TIFF header.
        guard payload.count >= 6 + 8,
              payload[0] == 0x45, payload[1] == 0x78, payload[2] == 0x69, payload[3] == 0x66
        else { return nil }
        let tiff = UnsafeRawBufferPointer(rebasing: payload[6...])
        let bigEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): bigEndian = false // "II", Intel
        case (0x4D, 0x4D): bigEndian = true // "MM", Motorola
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= tiff.count else { return nil }
            let (a, b) = (Int(tiff[at]), Int(tiff[at + 1]))
            return bigEndian ? a << 8 | b : b << 8 | a
        }
        func u32(_ at: Int) -> Int? {
            guard let high = u16(bigEndian ? at : at + 2), let low = u16(bigEndian ? at + 2 : at) else { return nil }
            return high << 16 | low
        }
        guard u16(2) == 42, let ifd = u32(4), let declared = u16(ifd) else { return nil }
        // Never trust the entry count beyond what the segment can hold.
        let entries = min(declared, max(0, (tiff.count - ifd - 2) / 12))
        for index in 0..<entries {
            let entry = ifd + 2 + index * 12
            guard u16(entry) == 0x0112 else { continue }
            // SHORT (3) is what the standard says; a few writers use LONG (4).
            // Either way the value sits left-justified in the 4-byte field.
            let value: Int? = switch u16(entry + 2) {
            case 3: u16(entry + 8)
            case 4: u32(entry + 8)
            default: nil
            }
            guard let value, (1...8).contains(value) else { return nil }
            return ImageOrientation(rawValue: UInt8(value))
        }
        return nil
    }

    /// A complete APP1 segment (marker included) whose IFD0 holds only
    /// `orientation`, big-endian.
    static func app1Segment(for orientation: ImageOrientation) -> [UInt8] {
        let tiff: [UInt8] = [
            0x4D, 0x4D, 0x00, 0x2A, // "MM", 42
            0x00, 0x00, 0x00, 0x08, // IFD0 right after the header
            0x00, 0x01, // one entry
            0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, // Orientation, SHORT, count 1
            0x00, orientation.rawValue, 0x00, 0x00, // value, left-justified
            0x00, 0x00, 0x00, 0x00, // no next IFD
        ]
        let payload: [UInt8] = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        return [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }
}
