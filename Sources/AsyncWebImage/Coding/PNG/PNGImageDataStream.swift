
/// Where a complete PNG's zlib stream lies: the payloads of its run of
/// IDAT chunks, each checked against its CRC.
///
/// Found only when the file is whole and plain: every IDAT chunk complete
/// with a correct CRC, all of them consecutive, and no eXIf chunk after them
/// (libspng reads chunks after the image data only while decoding it).
/// Anything else is `nil`, and the caller decodes with libspng as before,
/// which reports the problem exactly as it always did.
struct PNGImageDataStream {
    /// Offset and length of each IDAT payload, in file order.
    let payloads: [(offset: Int, length: Int)]
    /// Sum of the payload lengths.
    let totalBytes: Int

    /// Walks the chunks of `png`; `nil` when the file is not whole and plain (see above).
    ///
    /// - Complexity: O(chunks) plus one CRC-32 pass over the image data.
    init?(_ png: UnsafeRawBufferPointer) {
        guard png.count >= 8, let base = png.baseAddress else { return nil }
        func u32(_ at: Int) -> Int {
            Int(png[at]) << 24 | Int(png[at + 1]) << 16 | Int(png[at + 2]) << 8 | Int(png[at + 3])
        }
        func isType(_ offset: Int, _ name: StaticString) -> Bool {
            name.withUTF8Buffer { png[(offset + 4)..<(offset + 8)].elementsEqual($0) }
        }
        var payloads: [(offset: Int, length: Int)] = []
        var total = 0
        var offset = 8
        var afterImageData = false
        // Every step moves at least 12 bytes: bounded by the data.
        while offset + 12 <= png.count {
            let length = u32(offset)
            guard length <= Int(Int32.max), offset + 12 + length <= png.count else { return nil }
            if isType(offset, "IDAT") {
                guard !afterImageData else { return nil }
                let crc = CRC32.checksum(UnsafeRawBufferPointer(start: base + offset + 4, count: 4 + length))
                guard Int(crc) == u32(offset + 8 + length) else { return nil }
                payloads.append((offset + 8, length))
                total += length
            } else if !payloads.isEmpty {
                afterImageData = true
                if isType(offset, "IEND") { break }
                if isType(offset, "eXIf") { return nil }
            }
            offset += 12 + length
        }
        guard !payloads.isEmpty else { return nil }
        self.payloads = payloads
        self.totalBytes = total
    }

    /// Calls `body` with the zlib stream as one buffer: the IDAT payload in
    /// place when there is one chunk, else a copy of the payloads joined.
    func withContiguousBytes<Result>(
        in png: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        if payloads.count == 1, let only = payloads.first {
            return try body(UnsafeRawBufferPointer(rebasing: png[only.offset..<(only.offset + only.length)]))
        }
        var joined = [UInt8]()
        joined.reserveCapacity(totalBytes)
        for payload in payloads {
            joined.append(contentsOf: png[payload.offset..<(payload.offset + payload.length)])
        }
        return try joined.withUnsafeBytes(body)
    }
}
