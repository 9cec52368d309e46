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
                case 3: paeth3(source, destination, previous, count)
                case 4: paeth4(source, destination, previous, count)
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
            i = pixels(source, destination, count, stride) { _, filtered in
                left = filtered &+ left
                return left
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
            i = pixels(source, destination, count, stride) { i, filtered in
                let above = load4(previous + i)
                left = filtered &+ ((left & above) &+ ((left ^ above) &>> 1))
                return left
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

    /// Paeth on RGB rows; its own function so that the stride is a
    /// constant in the loop (the three calls of one inlined body were merged
    /// into one with the stride a variable).
    @inline(never)
    private static func paeth3(_ source: UnsafePointer<UInt8>, _ destination: UnsafeMutablePointer<UInt8>, _ previous: UnsafePointer<UInt8>, _ count: Int) {
        paeth(source, destination, previous, count, 3)
    }

    /// Paeth on RGBA rows (see ``paeth3(_:_:_:_:)``).
    @inline(never)
    private static func paeth4(_ source: UnsafePointer<UInt8>, _ destination: UnsafeMutablePointer<UInt8>, _ previous: UnsafePointer<UInt8>, _ count: Int) {
        paeth(source, destination, previous, count, 4)
    }

    /// Paeth: predict with whichever of a, b, c is closest to a + b − c,
    /// ties broken in the order a, b, c.
    ///
    /// RGB and RGBA rows go a pixel at a time in 4 lanes (libpng's SIMD
    /// filters do the same): each pixel depends on the one to its left, but
    /// its channels do not depend on each other. The part of the predictor
    /// that depends on the row above only is worked out first
    /// (``PNGPaethChoice``), off the chain from one pixel to the next.
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
            i = pixels(source, destination, count, stride) { i, filtered in
                let above = SIMD4<Int16>(truncatingIfNeeded: load4(previous + i))
                let choice = PNGPaethChoice(above: above, aboveLeft: aboveLeft)
                let pixel = filtered &+ SIMD4<UInt8>(truncatingIfNeeded: choice.predict(left: left))
                left = SIMD4<Int16>(truncatingIfNeeded: pixel)
                aboveLeft = above
                return pixel
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

    /// Unfilters the whole RGB or RGBA pixels of a row of `count` bytes
    /// (`stride` 3 or 4) in order: `pixel` gets the byte offset and the
    /// pixel's filtered bytes in 4 lanes, and returns the raw pixel.
    ///
    /// Each pixel is stored as 4 bytes; for RGB the fourth is the next
    /// pixel's first byte, read before the store (rows unfilter in place)
    /// and rewritten by the next pixel's own store. Storing 3 bytes lane by
    /// lane went through the stack (a store-forwarding stall on every
    /// pixel); only a row's last lane pixel is stored that way, so nothing
    /// is written past the row.
    ///
    /// - Returns: the bytes done: a multiple of `stride`, 0 when the row is
    ///   shorter than 4 bytes; the caller finishes the rest byte by byte.
    @inline(__always)
    private static func pixels(
        _ source: UnsafePointer<UInt8>, _ destination: UnsafeMutablePointer<UInt8>, _ count: Int, _ stride: Int,
        _ pixel: (_ offset: Int, _ filtered: SIMD4<UInt8>) -> SIMD4<UInt8>
    ) -> Int {
        guard count >= 4 else { return 0 }
        var i = 0
        var filtered = load4(source)
        // Each turn moves one pixel along the row: bounded by `count`.
        while true {
            let raw = pixel(i, filtered)
            let next = i + stride
            guard next + 4 <= count else {
                store(raw, to: destination + i, stride: stride)
                return next
            }
            filtered = load4(source + next)
            UnsafeMutableRawPointer(destination + i).storeBytes(of: raw, as: SIMD4<UInt8>.self)
            i = next
        }
    }

    /// Four bytes from `pointer`, any alignment.
    @inline(__always)
    private static func load4(_ pointer: UnsafePointer<UInt8>) -> SIMD4<UInt8> {
        UnsafeRawPointer(pointer).loadUnaligned(as: SIMD4<UInt8>.self)
    }

    /// Stores one pixel of exactly `stride` (3 or 4) bytes: a row's last
    /// lane pixel (see ``pixels(_:_:_:_:_:)``), which must not write past the row.
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
