/// Reads the entropy-coded data of a JPEG scan bit by bit, most significant
/// bit first, undoing the byte stuffing (`FF 00` is a data byte `FF`).
///
/// At a marker it stops consuming bytes and supplies zero bits, as libjpeg
/// does; ``overran`` then tells whether any of those were actually used
/// (the scan's data ended before its blocks did: damaged or truncated).
struct JPEGBitReader {
    private let data: UnsafeRawBufferPointer
    /// The next byte to read.
    private(set) var position: Int
    /// Up to 64 bits not yet consumed, right-aligned.
    private var buffer: UInt64 = 0
    /// How many bits of ``buffer`` are valid.
    private var count = 0
    /// Zero bits supplied past the marker (or the end of the data).
    private var phantom = 0
    /// Where the marker that ends the data starts, once reached.
    private(set) var markerOffset: Int?

    /// A reader of the entropy-coded data starting at `start` in `data`.
    init(_ data: UnsafeRawBufferPointer, at start: Int) {
        self.data = data
        position = start
    }

    /// Whether bits past the end of the data were consumed.
    var overran: Bool { phantom > count }

    /// Tops the buffer up to at least 57 bits.
    @inline(__always)
    private mutating func fill() {
        while count <= 56 {
            var byte: UInt8 = 0
            if markerOffset == nil, position < data.count {
                byte = data[position]
                if byte == 0xFF {
                    let next: UInt8 = position + 1 < data.count ? data[position + 1] : 0xD9
                    if next == 0x00 {
                        position += 2
                    } else {
                        // A marker: not consumed; zeros from here on.
                        markerOffset = position
                        byte = 0
                        phantom += 8
                    }
                } else {
                    position += 1
                }
            } else {
                if markerOffset == nil { markerOffset = data.count }
                phantom += 8
            }
            buffer = buffer << 8 | UInt64(byte)
            count += 8
        }
    }

    /// The next `n` bits (0...16) without consuming them.
    @inline(__always)
    mutating func peek(_ n: Int) -> Int {
        if count < n { fill() }
        return Int(truncatingIfNeeded: (buffer >> UInt64(count - n)) & ((1 << UInt64(n)) - 1))
    }

    /// Consumes `n` bits already peeked.
    @inline(__always)
    mutating func skip(_ n: Int) { count -= n }

    /// The next `n` bits (0...16), consumed.
    @inline(__always)
    mutating func bits(_ n: Int) -> Int {
        guard n > 0 else { return 0 }
        let value = peek(n)
        count -= n
        return value
    }

    /// The next `n` bits as JPEG's signed magnitude category value (EXTEND).
    @inline(__always)
    mutating func signed(_ n: Int) -> Int {
        guard n > 0 else { return 0 }
        let value = bits(n)
        return value < 1 << (n - 1) ? value - (1 << n) + 1 : value
    }

    /// Moves past restart marker `RSTn` (`n` = `index % 8`), dropping the
    /// padding bits of the last byte; `false` when anything else comes
    /// first (data left over, another marker, the end): libjpeg would
    /// resynchronise with a warning, on a damaged file.
    mutating func restart(index: Int) -> Bool {
        if markerOffset == nil { fill() }
        guard !overran, count - phantom < 8, let marker = markerOffset, marker + 1 < data.count,
              data[marker + 1] == 0xD0 + UInt8(index % 8)
        else { return false }
        position = marker + 2
        buffer = 0
        count = 0
        phantom = 0
        markerOffset = nil
        return true
    }

    /// Where the data after the scan starts (its terminating marker), once
    /// every block has been read: `nil` when the scan's data went on
    /// (whole bytes left before the marker) or ran short.
    mutating func endOfScan() -> Int? {
        if markerOffset == nil { fill() }
        guard !overran, count - phantom < 8 else { return nil }
        return markerOffset
    }
}
