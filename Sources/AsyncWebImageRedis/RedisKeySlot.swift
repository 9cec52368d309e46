/// The Redis Cluster hash slot of a key: CRC16 (XMODEM) of the key, or of
/// its hash tag — the part between the first `{` and the next `}`, when
/// that is not empty — modulo 16,384.
///
/// The store names an entry's value and its lease `PREFIX{DIGEST}:v` and
/// `PREFIX{DIGEST}:l`: one tag, one slot, so the lease's `MGET` of both and
/// its script run on one node.
enum RedisKeySlot {
    /// The number of slots in a cluster.
    static let count = 16_384

    /// The slot of `key`.
    static func slot(of key: [UInt8]) -> Int {
        Int(crc16(hashedPart(of: key)) & UInt16(count - 1))
    }

    /// The bytes the slot is computed from: the hash tag when there is one.
    static func hashedPart(of key: [UInt8]) -> ArraySlice<UInt8> {
        guard let open = key.firstIndex(of: UInt8(ascii: "{")),
              let close = key[(open + 1)...].firstIndex(of: UInt8(ascii: "}")),
              close > open + 1 else { return key[...] }
        return key[(open + 1)..<close]
    }

    /// CRC16-CCITT, XMODEM variant (polynomial 0x1021, initial 0), as the
    /// Redis Cluster specification defines it.
    static func crc16(_ bytes: ArraySlice<UInt8>) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc = (crc << 8) ^ table[Int((crc >> 8) ^ UInt16(byte))]
        }
        return crc
    }

    private static let table: [UInt16] = (0..<256).map { index in
        var crc = UInt16(index) << 8
        for _ in 0..<8 {
            crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1
        }
        return crc
    }
}
