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
            switch stride {
            case 3: sub(source, destination, count, 3)
            case 4: sub(source, destination, count, 4)
            default: sub(source, destination, count, stride)
            }
        case 2:
            if let previous {
                for i in 0..<count { destination[i] = source[i] &+ previous[i] }
            } else if UnsafePointer(destination) != source {
                destination.update(from: source, count: count)
            }
        case 3:
            switch stride {
            case 3: average(source, destination, previous, count, 3)
            case 4: average(source, destination, previous, count, 4)
            default: average(source, destination, previous, count, stride)
            }
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
        var i = 0
        if stride == 3 || stride == 4 {
            // A pixel's channels are independent: one 4-lane add per pixel.
            var left = SIMD4<UInt8>(repeating: 0)
            while i + 4 <= count {
                let pixel = load4(source + i) &+ left
                store(pixel, to: destination + i, stride: stride)
                left = pixel
                i += stride
            }
        }
        // The row's first pixel, when the lanes did not take it (other strides, a lone RGB pixel).
        if i == 0 {
            let head = min(stride, count)
            while i < head {
                destination[i] = source[i]
                i += 1
            }
        }
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
        guard let previous else {
            // No row above: b = 0, so the prediction is a / 2.
            let head = min(stride, count)
            for i in 0..<head { destination[i] = source[i] }
            var i = head
            while i < count {
                destination[i] = source[i] &+ (destination[i - stride] >> 1)
                i += 1
            }
            return
        }
        var i = 0
        if stride == 3 || stride == 4 {
            // ⌊(a + b) / 2⌋ in 8-bit lanes: the bits a and b share, plus half
            // the ones they do not. Widening to 16-bit lanes and narrowing
            // back went through the stack, byte by byte (a store-forwarding
            // stall that took two thirds of an RGB thumbnail's unfilter).
            var left = SIMD4<UInt8>(repeating: 0)
            while i + 4 <= count {
                let above = load4(previous + i)
                let pixel = load4(source + i) &+ ((left & above) &+ ((left ^ above) &>> 1))
                store(pixel, to: destination + i, stride: stride)
                left = pixel
                i += stride
            }
        }
        // The row's first pixel, when the lanes did not take it (other strides, a lone RGB pixel).
        if i == 0 {
            let head = min(stride, count)
            while i < head {
                destination[i] = source[i] &+ (previous[i] >> 1)
                i += 1
            }
        }
        while i < count {
            let predicted = (UInt16(destination[i - stride]) + UInt16(previous[i])) >> 1
            destination[i] = source[i] &+ UInt8(truncatingIfNeeded: predicted)
            i += 1
        }
    }

    /// Paeth: predict with whichever of a, b, c is closest to a + b − c,
    /// ties broken in the order a, b, c.
    ///
    /// RGB and RGBA rows go a pixel at a time in 4 lanes (libpng's SIMD
    /// filters do the same): each pixel depends on the one to its left, but
    /// its channels do not depend on each other.
    @inline(__always)
    private static func paeth(
        _ source: UnsafePointer<UInt8>, _ destination: UnsafeMutablePointer<UInt8>, _ previous: UnsafePointer<UInt8>,
        _ count: Int, _ stride: Int
    ) {
        var i = 0
        if stride == 3 || stride == 4 {
            // Left of the row a = c = 0, for which the lanes pick b, as the scalar predictor does.
            var left = SIMD4<Int16>(repeating: 0)
            var aboveLeft = SIMD4<Int16>(repeating: 0)
            while i + 4 <= count {
                let above = SIMD4<Int16>(truncatingIfNeeded: load4(previous + i))
                let pixel = (SIMD4<Int16>(truncatingIfNeeded: load4(source + i)) &+ predictor(left, above, aboveLeft)) & 0xFF
                store(SIMD4<UInt8>(truncatingIfNeeded: pixel), to: destination + i, stride: stride)
                left = pixel
                aboveLeft = above
                i += stride
            }
        }
        // The row's first pixel, when the lanes did not take it (other strides, a lone RGB pixel):
        // left of the row a = c = 0, so the predictor is b.
        if i == 0 {
            let head = min(stride, count)
            while i < head {
                destination[i] = source[i] &+ previous[i]
                i += 1
            }
        }
        while i < count {
            let a = Int(destination[i - stride]), b = Int(previous[i]), c = Int(previous[i - stride])
            destination[i] = source[i] &+ UInt8(truncatingIfNeeded: predictor(a, b, c))
            i += 1
        }
    }

    /// ``predictor(_:_:_:)`` in each of 4 lanes.
    @inline(__always)
    static func predictor(_ a: SIMD4<Int16>, _ b: SIMD4<Int16>, _ c: SIMD4<Int16>) -> SIMD4<Int16> {
        let p = b &- c, q = a &- c
        let r = p &+ q
        let pa = pointwiseMax(p, 0 &- p), pb = pointwiseMax(q, 0 &- q), pc = pointwiseMax(r, 0 &- r)
        var predicted = c
        predicted.replace(with: b, where: pb .<= pc)
        predicted.replace(with: a, where: (pa .<= pb) .& (pa .<= pc))
        return predicted
    }

    /// Four bytes from `pointer`, any alignment.
    @inline(__always)
    private static func load4(_ pointer: UnsafePointer<UInt8>) -> SIMD4<UInt8> {
        UnsafeRawPointer(pointer).loadUnaligned(as: SIMD4<UInt8>.self)
    }

    /// Stores one pixel of `stride` (3 or 4) bytes: an RGB pixel must not
    /// overwrite the next pixel's still-filtered byte (rows unfilter in place).
    ///
    /// The RGB bytes come out of a general-purpose register, not lane by
    /// lane (which may go through the stack).
    @inline(__always)
    private static func store(_ pixel: SIMD4<UInt8>, to pointer: UnsafeMutablePointer<UInt8>, stride: Int) {
        if stride == 4 {
            UnsafeMutableRawPointer(pointer).storeBytes(of: pixel, as: SIMD4<UInt8>.self)
        } else {
            // Lane 0 in the low byte on any host.
            let bits = UInt32(littleEndian: unsafeBitCast(pixel, to: UInt32.self))
            pointer[0] = UInt8(truncatingIfNeeded: bits)
            pointer[1] = UInt8(truncatingIfNeeded: bits >> 8)
            pointer[2] = UInt8(truncatingIfNeeded: bits >> 16)
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
