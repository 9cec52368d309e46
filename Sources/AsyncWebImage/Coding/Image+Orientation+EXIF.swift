extension Image.Orientation {
    /// Reads the `Orientation` tag (0x0112) from the first IFD of a TIFF
    /// structure: the payload of a PNG eXIf chunk, or of a JPEG APP1 segment
    /// after its `Exif\0\0` prefix.
    ///
    /// Every offset is bounds-checked and only IFD0 is read, so hostile data
    /// costs O(1) work and never traps. Returns `nil` when there is no valid
    /// tag (callers treat that as `.up`).
    package init?(tiff bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 8 else { return nil }
        let bigEndian: Bool
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): bigEndian = false
        case (0x4D, 0x4D): bigEndian = true
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= bytes.count else { return nil }
            let (a, b) = (Int(bytes[at]), Int(bytes[at + 1]))
            return bigEndian ? a << 8 | b : b << 8 | a
        }
        func u32(_ at: Int) -> Int? {
            guard let high = u16(bigEndian ? at : at + 2), let low = u16(bigEndian ? at + 2 : at) else { return nil }
            return high << 16 | low
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return nil }
        for index in 0..<count {
            let entry = ifd + 2 + index * 12
            guard let tag = u16(entry) else { return nil }
            guard tag == 0x0112 else { continue }
            // SHORT (type 3), one value, stored in the first half of the value field.
            guard u16(entry + 2) == 3, let value = u16(entry + 8), (1...8).contains(value) else { return nil }
            self.init(exifValue: value)
            return
        }
        return nil
    }
}
