/// What the chunk structure of a PNG received so far contains: enough to
/// decide cheaply, without inflating anything, whether decoding a preview is
/// worth trying, and to make a partly received IDAT chunk decodable.
struct PNGChunkScan: Sendable {
    /// The eight bytes every PNG starts with.
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Width and height from a complete IHDR, if one has arrived.
    var size: PixelSize?
    /// Whether the IHDR declares Adam7 interlacing.
    var isInterlaced = false
    /// IDAT payload bytes received, including those of a partial last chunk.
    var imageDataBytes = 0
    /// Whether the IEND chunk has arrived.
    var isComplete = false
    /// The offset and received payload bytes of an IDAT chunk the data ends in.
    var partialImageChunk: (offset: Int, payload: Int)?

    /// Walks the chunk headers of `bytes`.
    ///
    /// - Complexity: O(number of chunks); no chunk payload is read except IHDR's.
    /// - Throws: ``ImageError/undecodable(_:_:)`` when the bytes received can
    ///   already be seen not to be a PNG (wrong signature, first chunk not
    ///   IHDR, a chunk length over 2³¹ − 1).
    init(_ bytes: UnsafeRawBufferPointer) throws(ImageError) {
        let prefix = min(bytes.count, 8)
        guard bytes.prefix(prefix).elementsEqual(Self.signature.prefix(prefix)) else {
            throw .undecodable(.png, "not a PNG: the signature does not match")
        }
        func u32(_ at: Int) -> Int {
            Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
        }
        func type(at offset: Int, is name: StaticString) -> Bool {
            name.withUTF8Buffer { bytes[(offset + 4)..<(offset + 8)].elementsEqual($0) }
        }
        var offset = 8
        // Every step moves at least 12 bytes forward: the loop is bounded by the data.
        while offset + 8 <= bytes.count {
            let length = u32(offset)
            guard length <= Int(Int32.max) else { throw .undecodable(.png, "chunk length \(length) over 2³¹ − 1") }
            if offset == 8 {
                guard type(at: offset, is: "IHDR"), length == 13 else { throw .undecodable(.png, "the first chunk is not IHDR") }
                if offset + 8 + 13 <= bytes.count {
                    size = PixelSize(width: u32(offset + 8), height: u32(offset + 12))
                    isInterlaced = bytes[offset + 8 + 12] != 0
                }
            }
            let end = offset + 12 + length
            let isImageData = type(at: offset, is: "IDAT")
            if end > bytes.count {
                if isImageData {
                    let payload = min(length, bytes.count - offset - 8)
                    imageDataBytes += payload
                    partialImageChunk = (offset, payload)
                }
                return
            }
            if isImageData { imageDataBytes += length }
            if type(at: offset, is: "IEND") {
                isComplete = true
                return
            }
            offset = end
        }
    }

    /// The bytes libspng should see: `bytes` itself, or, when it ends inside an
    /// IDAT chunk, a copy that ends with that chunk shortened to what arrived
    /// and re-sealed with its CRC, so libspng decodes every row the received
    /// bytes hold (libspng reads whole chunks only).
    func decodableBytes(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let (offset, payload) = partialImageChunk, payload > 0 else { return nil }
        var sealed = [UInt8](unsafeUninitializedCapacity: offset + 12 + payload) { buffer, count in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            raw.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[0..<(offset + 8 + payload)]))
            count = offset + 8 + payload
        }
        for (index, shift) in [24, 16, 8, 0].enumerated() {
            sealed[offset + index] = UInt8(truncatingIfNeeded: payload >> shift)
        }
        let crc = sealed.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[(offset + 4)...])) }
        sealed.append(contentsOf: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: crc >> $0) })
        return sealed
    }
}
