/// Reverses the five PNG row filters (PNG specification, 9.2–9.4).
///
/// Each byte is predicted from `a` (the byte one pixel to the left, 0 left
/// of the row), `b` (the byte above, 0 on a pass's first row) and `c` (the
/// byte above `a`); the filtered byte is the difference modulo 256.
enum PNGUnfilter {
    /// Unfilters one row.
    ///
    /// - Parameters:
    ///   - filter: the row's filter-type byte.
    ///   - source: the filtered bytes (after the filter byte).
    ///   - destination: where the raw bytes go; may be `source` itself.
    ///   - previous: the raw previous row of the same pass, or `nil` on its first row.
    ///   - count: bytes of the row.
    ///   - stride: ``PNGRawLayout/filterStride``, 1...8.
    /// - Returns: `false` for a filter type other than 0...4.
    @inline(__always)
    static func unfilter(
        filter: UInt8, source: UnsafePointer<UInt8>, destination: UnsafeMutablePointer<UInt8>,
        previous: UnsafePointer<UInt8>?, count: Int, stride: Int
    ) -> Bool {
        switch filter {
        case 0:
            if UnsafePointer(destination) != source { destination.update(from: source, count: count) }
        case 1:
            sub(source, destination, count, stride)
        case 2:
            if let previous {
                for i in 0..<count { destination[i] = source[i] &+ previous[i] }
            } else if UnsafePointer(destination) != source {
                destination.update(from: source, count: count)
            }
        case 3:
            average(source, destination, previous, count, stride)
        case 4:
            if let previous {
                switch stride {
                case 3: paeth(source, destination, previous, count, 3)
                case 4: paeth(source, destination, previous, count, 4)
                default: paeth(source, destination, previous, count, stride)
                }
            } else {
                // Paeth of (a, 0, 0) is a: the Sub filter.
                sub(source, destination, count, stride)
            }
        default:
            return false
        }
        return true
    }

    @inline(__always)
    private static func sub(_ source: UnsafePointer<UInt8>, _ destination: UnsafeMutablePointer<UInt8>, _ count: Int, _ stride: Int) {
        let head = min(stride, count)
        for i in 0..<head { destination[i] = source[i] }
        var i = head
        while i < count {
            destination[i] = source[i] &+ destination[i - stride]
            i += 1
        }
    }

    @inline(__always)
    private static func average(
        _ source: UnsafePointer<UInt8>, _ destination: UnsafeMutablePointer<UInt8>, _ previous: UnsafePointer<UInt8>?,
        _ count: Int, _ stride: Int
    ) {
        let head = min(stride, count)
        if let previous {
            for i in 0..<head { destination[i] = source[i] &+ (previous[i] >> 1) }
            var i = head
            while i < count {
                let predicted = (UInt16(destination[i - stride]) + UInt16(previous[i])) >> 1
                destination[i] = source[i] &+ UInt8(truncatingIfNeeded: predicted)
                i += 1
            }
        } else {
            for i in 0..<head { destination[i] = source[i] }
            var i = head
            while i < count {
                destination[i] = source[i] &+ (destination[i - stride] >> 1)
                i += 1
            }
        }
    }

    /// Paeth: predict with whichever of a, b, c is closest to a + b − c,
    /// ties broken in the order a, b, c.
    @inline(__always)
    private static func paeth(
        _ source: UnsafePointer<UInt8>, _ destination: UnsafeMutablePointer<UInt8>, _ previous: UnsafePointer<UInt8>,
        _ count: Int, _ stride: Int
    ) {
        let head = min(stride, count)
        // Left of the row a = c = 0, so the predictor is b.
        for i in 0..<head { destination[i] = source[i] &+ previous[i] }
        var i = head
        while i < count {
            let a = Int(destination[i - stride]), b = Int(previous[i]), c = Int(previous[i - stride])
            destination[i] = source[i] &+ UInt8(truncatingIfNeeded: predictor(a, b, c))
            i += 1
        }
    }

    /// The Paeth predictor exactly as the PNG specification (9.4) writes it.
    @inline(__always)
    static func predictor(_ a: Int, _ b: Int, _ c: Int) -> Int {
        let pa = abs(b - c)        // |p − a| with p = a + b − c
        let pb = abs(a - c)        // |p − b|
        let pc = abs(a + b - 2 * c) // |p − c|
        if pa <= pb && pa <= pc { return a }
        if pb <= pc { return b }
        return c
    }
}
