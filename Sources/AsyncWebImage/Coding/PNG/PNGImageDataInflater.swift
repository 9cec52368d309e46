import CIsal

/// A PNG's zlib stream, inflated a piece at a time across its IDAT payloads
/// with Intel ISA-L's streaming inflater.
///
/// A streamed thumbnail asks for one row at a time, so the inflater keeps
/// its state between calls (zlib's interface, ISA-L's speed: its
/// table-driven decoder runs about twice as fast as zlib 1.2's `inflate`).
/// ISA-L parses the zlib header and checks the Adler-32 trailer itself
/// (vectorised), so no second pass over the rows is needed.
///
/// The state (85 KiB of Huffman tables and inflate window) is allocated once
/// per image and freed with this value.
struct PNGImageDataInflater: ~Copyable {
    private let state: UnsafeMutablePointer<inflate_state>
    private let stream: PNGImageDataStream
    private let png: UnsafeRawBufferPointer
    /// The next IDAT payload to hand to ISA-L once the current one is used up.
    private var nextPayload = 0

    /// Prepares to inflate the IDAT payloads `stream` found in `png`, which
    /// must outlive this value.
    init(stream: PNGImageDataStream, png: UnsafeRawBufferPointer) {
        state = .allocate(capacity: 1)
        isal_inflate_init(state)
        // A zlib stream: ISA-L reads the header and verifies the Adler-32 at the end.
        state.pointee.crc_flag = UInt32(ISAL_ZLIB)
        self.stream = stream
        self.png = png
    }

    deinit { state.deallocate() }

    /// Whether the stream has ended: its last block inflated and the
    /// Adler-32 read and found right.
    var hasEnded: Bool { state.pointee.block_state == ISAL_BLOCK_FINISH }

    /// Fills exactly `count` bytes at `out`.
    ///
    /// - Returns: `false` on a damaged stream (bad block, symbol, distance,
    ///   header or Adler-32) or one that ends, or whose data runs out, first.
    mutating func read(into out: UnsafeMutablePointer<UInt8>, count: Int) -> Bool {
        guard count > 0 else { return true }
        guard count <= Int(UInt32.max) else { return false }
        state.pointee.next_out = out
        state.pointee.avail_out = UInt32(count)
        // Each turn consumes input or produces output, or fails: bounded by the data.
        while state.pointee.avail_out > 0 {
            guard step() else { return false }
        }
        return true
    }

    /// Whether the stream ends exactly here: the trailer follows the data
    /// already read (it may lie in later IDAT chunks) and its Adler-32 matches.
    mutating func finish() -> Bool {
        var extra: UInt8 = 0
        return withUnsafeMutablePointer(to: &extra) { extra in
            state.pointee.next_out = extra
            state.pointee.avail_out = 1
            // As in `read`: each turn makes progress or fails.
            while !hasEnded {
                guard step() else { return false }
            }
            return state.pointee.avail_out == 1
        }
    }

    /// One call of `isal_inflate`, given the next IDAT payload when the
    /// current one is used up.
    ///
    /// ISA-L inflates ahead into its own window and may have taken all the
    /// input while output is still pending, so an empty input alone is not
    /// the end: only a call that neither consumes nor produces anything is.
    ///
    /// - Returns: `false` on a damaged stream, on one that has ended, or
    ///   when nothing moved (the data ran out).
    private mutating func step() -> Bool {
        guard !hasEnded else { return false }
        if state.pointee.avail_in == 0, nextPayload < stream.payloads.count, let base = png.baseAddress {
            let payload = stream.payloads[nextPayload]
            nextPayload += 1
            state.pointee.next_in = UnsafeMutablePointer(mutating: (base + payload.offset).assumingMemoryBound(to: UInt8.self))
            state.pointee.avail_in = UInt32(payload.length)
        }
        let (input, room) = (state.pointee.avail_in, state.pointee.avail_out)
        guard isal_inflate(state) == ISAL_DECOMP_OK else { return false }
        return state.pointee.avail_in != input || state.pointee.avail_out != room || hasEnded
    }
}
