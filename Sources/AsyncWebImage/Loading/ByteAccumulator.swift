import Foundation

/// An append-only byte buffer that hands out its prefix as `Data` without
/// copying.
///
/// The buffer is one `Data` (`whole`) over a `malloc`ed block; snapshots are
/// prefix slices of it, so they are zero-based, share `whole`'s storage, and
/// copy on write if their holder mutates them (the storage is never uniquely
/// referenced while the accumulator holds it). Appends write the bytes past
/// every snapshot's end through the raw pointer: no snapshot ever sees a byte
/// change, and no reader and writer touch the same byte. Growing moves to a
/// new block; old snapshots keep the old block alive.
struct ByteAccumulator {
    private var whole = Data()
    private var base: UnsafeMutableRawPointer?
    private var block: Block?
    private var capacity = 0
    /// Bytes appended so far.
    private(set) var count = 0
    /// The most bytes the buffer may hold.
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// Reserves room for `expected` bytes up front (when the length is announced).
    mutating func reserve(_ expected: Int) {
        if expected > capacity { grow(to: min(expected, limit)) }
    }

    /// Appends `data`; false (appending nothing) when that would pass `limit`.
    mutating func append(_ data: Data) -> Bool {
        guard !data.isEmpty else { return true }
        guard data.count <= limit - count else { return false }
        if count + data.count > capacity {
            grow(to: min(limit, max(count + data.count, capacity * 2, 65_536)))
        }
        data.copyBytes(to: (base! + count).assumingMemoryBound(to: UInt8.self), count: data.count)
        count += data.count
        return true
    }

    /// Bytes `[0, end)`, zero-based, sharing the buffer.
    func prefix(_ end: Int) -> Data {
        end == 0 ? Data() : whole[0..<end]
    }

    /// Bytes `[start, count)` as a zero-based `Data` (a copy unless `start` is 0).
    func suffix(from start: Int) -> Data {
        start == 0 ? prefix(count) : Data(whole[start..<count])
    }

    private mutating func grow(to newCapacity: Int) {
        // Never small: `Data` copies tiny buffers inline instead of
        // referencing them, and the accumulator writes through `base`.
        let capacity = max(newCapacity, 4096)
        let block = Block(capacity: capacity)
        if let base, count > 0 { block.pointer.copyMemory(from: base, byteCount: count) }
        base = block.pointer
        self.capacity = capacity
        // The deallocator keeps the block alive as long as any slice of `whole` is.
        whole = Data(bytesNoCopy: block.pointer, count: capacity, deallocator: .custom { _, _ in
            withExtendedLifetime(block) {}
        })
        self.block = block
        assert(whole.withUnsafeBytes { $0.baseAddress } == UnsafeRawPointer(block.pointer))
    }

    /// A `malloc`ed block, freed when the accumulator and every `Data` over it are gone.
    private final class Block: @unchecked Sendable {
        // Safe: the pointer is immutable. Bytes are written only by the one
        // accumulator that owns the block — it lives in the download state
        // machine, mutated only under its transfer's lock, so there is one
        // writer at a time — and only past every published snapshot's end
        // (see the type's comment), so no reader ever sees a byte change.
        let pointer: UnsafeMutableRawPointer

        init(capacity: Int) {
            pointer = .allocate(byteCount: capacity, alignment: 16)
        }

        deinit {
            pointer.deallocate()
        }
    }
}
