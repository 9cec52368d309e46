import Foundation
#if canImport(Glibc)
import Glibc
#endif

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
///
/// A body of unknown length that grows past ``reservationThreshold`` moves,
/// once, to a block of `limit` bytes of reserved address space whose pages
/// the kernel backs only as they are written: growing by doubling would hold
/// the old and the new block at once (1.5× the limit for a body that stops at
/// it, e.g. a decompression bomb) and leave up to half a block unused.
struct ByteAccumulator {
    /// Past this size a body of unknown length moves to a reservation of the whole limit.
    static let reservationThreshold = 1 << 20
    /// The largest limit reserved as address space (larger ones keep doubling).
    static let maxReservation = 1 << 34

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
            let doubled = min(limit, max(count + data.count, capacity * 2, 65_536))
            if doubled > Self.reservationThreshold, limit <= Self.maxReservation, let block = Block(reserving: limit) {
                move(to: block)
            } else {
                grow(to: doubled)
            }
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
        move(to: Block(capacity: max(newCapacity, 4096)))
    }

    private mutating func move(to block: Block) {
        let capacity = block.capacity
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

    /// A `malloc`ed block or an anonymous mapping, freed when the
    /// accumulator and every `Data` over it are gone.
    private final class Block: @unchecked Sendable {
        // Safe: the pointer is immutable. Bytes are written only by the one
        // accumulator that owns the block — it lives in the download state
        // machine, mutated only under its transfer's lock, so there is one
        // writer at a time — and only past every published snapshot's end
        // (see the type's comment), so no reader ever sees a byte change.
        let pointer: UnsafeMutableRawPointer
        let capacity: Int
        /// Whether `pointer` is a mapping (unmapped) rather than an allocation (deallocated).
        private let mapped: Bool

        init(capacity: Int) {
            pointer = .allocate(byteCount: capacity, alignment: 16)
            self.capacity = capacity
            mapped = false
        }

        /// Reserves `capacity` bytes of address space, backed by memory only
        /// where written (`MAP_NORESERVE`: no commit charge up front); nil
        /// when the kernel refuses.
        init?(reserving capacity: Int) {
            let address = mmap(nil, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
            guard let address, address != UnsafeMutableRawPointer(bitPattern: -1) else { return nil }
            pointer = address
            self.capacity = capacity
            mapped = true
        }

        deinit {
            if mapped { munmap(pointer, capacity) } else { pointer.deallocate() }
        }
    }
}
