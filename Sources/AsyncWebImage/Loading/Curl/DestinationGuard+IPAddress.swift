import Foundation

extension CurlDataLoader.DestinationGuard {
    /// An IPv4 or IPv6 address, as the destination guard sees a socket's peer.
    public enum IPAddress: Sendable, Hashable, CustomStringConvertible {
        /// An IPv4 address, most significant byte first (`127.0.0.1` is `0x7F000001`).
        case v4(UInt32)
        /// An IPv6 address as 16 bytes in network order.
        case v6([UInt8])

        /// Parses dotted-quad IPv4 or RFC 4291 IPv6 text (with `::` and an
        /// embedded dotted quad); `nil` for anything else.
        public init?(_ text: String) {
            if let v4 = CurlDataLoader.DestinationGuard.IPAddress.parseV4(Substring(text)) {
                self = .v4(v4)
            } else if let v6 = CurlDataLoader.DestinationGuard.IPAddress.parseV6(text) {
                self = .v6(v6)
            } else {
                return nil
            }
        }

        private static func parseV4(_ text: Substring) -> UInt32? {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 4 else { return nil }
            var value: UInt32 = 0
            for part in parts {
                guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCII), let byte = UInt8(part) else { return nil }
                value = value << 8 | UInt32(byte)
            }
            return value
        }

        private static func parseV6(_ text: String) -> [UInt8]? {
            var text = Substring(text)
            if text.hasPrefix("[") && text.hasSuffix("]") { text = text.dropFirst().dropLast() }
            if let percent = text.firstIndex(of: "%") { text = text[..<percent] } // zone index
            let halves = text.components(separatedBy: "::")
            guard halves.count <= 2 else { return nil }
            func groups(_ part: String) -> [UInt16]? {
                if part.isEmpty { return [] }
                var result: [UInt16] = []
                let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
                for (index, piece) in pieces.enumerated() {
                    if index == pieces.count - 1, piece.contains("."), let v4 = parseV4(piece) {
                        result.append(UInt16(v4 >> 16))
                        result.append(UInt16(v4 & 0xFFFF))
                    } else {
                        guard !piece.isEmpty, piece.count <= 4, let group = UInt16(piece, radix: 16) else { return nil }
                        result.append(group)
                    }
                }
                return result
            }
            guard let head = groups(halves[0]) else { return nil }
            let tail = halves.count == 2 ? groups(halves[1]) : []
            guard let tail else { return nil }
            let all: [UInt16]
            if halves.count == 2 {
                guard head.count + tail.count <= 7 else { return nil }
                all = head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
            } else {
                guard head.count == 8 else { return nil }
                all = head
            }
            return all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        }

        public var description: String {
            switch self {
            case .v4(let value):
                return "\(value >> 24).\(value >> 16 & 0xFF).\(value >> 8 & 0xFF).\(value & 0xFF)"
            case .v6(let bytes):
                return stride(from: 0, to: 16, by: 2)
                    .map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
                    .joined(separator: ":")
            }
        }
    }
}
