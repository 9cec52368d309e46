/// The messages between a decode and its render worker, over a Unix
/// stream socket: a 12-byte header (kind, payload length, little-endian)
/// and the payload.
///
/// ```
/// worker  → decode   hello                                       once, when it starts
/// decode  → worker   request   cpu seconds (4) · document
/// worker  → decode   size      width, height (8 + 8: Double)     or failure (UTF-8 message)
/// decode  → worker   render    width, height (4 + 4) · data bytes (8); 0 × 0 to skip
/// worker  → decode   pixels    width × height × 4, straight RGBA  or failure
/// ```
enum SVGRenderFrame {
    /// What a frame carries.
    enum Kind: UInt32 {
        case hello = 0x5356_4701
        case request, size, render, pixels, failure
    }

    /// Bytes of a header.
    static let headerCount = 12
    /// The largest payload either side accepts (a document or a raster): 1 GiB.
    static let maxPayload = 1 << 30

    /// The header of a frame of `kind` with `length` payload bytes.
    static func header(_ kind: Kind, length: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(headerCount)
        append(kind.rawValue, to: &bytes)
        append(UInt64(length), to: &bytes)
        return bytes
    }

    /// The kind and payload length a header holds, or `nil` when it is not one.
    static func parseHeader(_ bytes: some Collection<UInt8>) -> (kind: Kind, length: Int)? {
        let bytes = Array(bytes)
        guard bytes.count == headerCount, let kind = Kind(rawValue: UInt32(read(bytes, at: 0, count: 4))) else { return nil }
        let length = read(bytes, at: 4, count: 8)
        guard length <= UInt64(maxPayload) else { return nil }
        return (kind, Int(length))
    }

    /// Appends `value`, little-endian.
    static func append(_ value: some FixedWidthInteger, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    /// The little-endian integer of `count` bytes at `offset`.
    static func read(_ bytes: [UInt8], at offset: Int, count: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in (offset..<offset + count).reversed() { value = value << 8 | UInt64(bytes[index]) }
        return value
    }
}
