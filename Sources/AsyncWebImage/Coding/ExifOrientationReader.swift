/// Reads the EXIF orientation of a JPEG APP1 segment, and writes the
/// smallest APP1 segment that carries one.
///
/// The TIFF structure inside is parsed by ``Image/Orientation/init(tiff:)``
/// (shared with PNG's eXIf chunk): bounds-checked, IFD0 only, so a hostile
/// segment yields `nil`, never a trap.
package enum ExifOrientationReader {
    /// The orientation in an APP1 payload (the bytes after the segment
    /// length, starting with `Exif\0\0`), or `nil` when the payload is not
    /// Exif (XMP also lives in APP1), is malformed, or has no valid
    /// orientation (1–8).
    static func orientation(inAPP1 payload: UnsafeRawBufferPointer) -> Image.Orientation? {
        // "Exif" then two pad bytes, then the TIFF header.
        guard payload.count >= 6 + 8,
              payload[0] == 0x45, payload[1] == 0x78, payload[2] == 0x69, payload[3] == 0x66
        else { return nil }
        return Image.Orientation(tiff: UnsafeRawBufferPointer(rebasing: payload[6...]))
    }

    /// A complete APP1 segment (marker included) whose IFD0 holds only
    /// `orientation`, big-endian.
    package static func app1Segment(for orientation: Image.Orientation) -> [UInt8] {
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
