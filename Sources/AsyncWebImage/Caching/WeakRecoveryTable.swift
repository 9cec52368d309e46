/// Images evicted from the memory cache's LRU, held by weak references to
/// their pixel storage so that an image somebody still uses can be found
/// again instead of being decoded a second time.
///
/// Each entry keeps the image's metadata beside the weak reference, so a
/// recovered ``Image`` is whole. Dead entries (whose pixels were freed) are
/// dropped when looked up, and by an incremental sweep: every insertion
/// examines ``sweepStep`` slots from a rotating cursor, so the whole table is
/// swept once every `capacity / sweepStep` insertions at O(1) cost per call,
/// and the dead entries it can hold stay proportional to the live ones.
struct WeakRecoveryTable {
    private struct Entry {
        let key: String
        weak var storage: PixelStorage?
        let width: Int
        let height: Int
        let pixelFormat: PixelFormat
        let bytesPerRow: Int
        let orientation: Image.Orientation
        let format: ImageFormat
        let cost: Int
        let expiry: ContinuousClock.Instant?
    }

    /// Slots examined by the incremental sweep on every insertion.
    static let sweepStep = 2

    private var slots: [Entry?] = []
    private var indexByKey: [String: Int] = [:]
    private var freeSlots: [Int] = []
    private var cursor = 0

    init() {}

    /// Number of entries, alive or not yet swept.
    var count: Int { indexByKey.count }

    /// Remembers `image` weakly under `key`, replacing an older entry.
    ///
    /// Does nothing when the pixels are already gone.
    /// - Complexity: O(1) amortised.
    mutating func insert(_ image: Image, forKey key: String, cost: Int, expiry: ContinuousClock.Instant? = nil) {
        let entry = Entry(
            key: key, storage: image.storage, width: image.width, height: image.height,
            pixelFormat: image.pixelFormat, bytesPerRow: image.bytesPerRow,
            orientation: image.orientation, format: image.format, cost: cost, expiry: expiry
        )
        if let index = indexByKey[key] {
            slots[index] = entry
        } else if let index = freeSlots.popLast() {
            slots[index] = entry
            indexByKey[key] = index
        } else {
            indexByKey[key] = slots.count
            slots.append(entry)
        }
        sweep(budget: Self.sweepStep)
    }

    /// Removes the entry for `key` and returns its image when the pixels are
    /// still alive.
    ///
    /// - Complexity: O(1) on average.
    mutating func take(_ key: String) -> (image: Image, cost: Int, expiry: ContinuousClock.Instant?)? {
        guard let index = indexByKey[key], let entry = slots[index] else { return nil }
        free(index, key: key)
        guard let storage = entry.storage else { return nil }
        let image = Image(
            width: entry.width, height: entry.height, pixelFormat: entry.pixelFormat,
            bytesPerRow: entry.bytesPerRow, orientation: entry.orientation, format: entry.format,
            isPreview: false, storage: storage
        )
        return (image, entry.cost, entry.expiry)
    }

    /// Whether `key` has an entry whose pixels are alive.
    func containsLive(_ key: String) -> Bool {
        guard let index = indexByKey[key] else { return false }
        return slots[index]?.storage != nil
    }

    /// Forgets the entry for `key`.
    mutating func remove(_ key: String) {
        if let index = indexByKey[key] { free(index, key: key) }
    }

    /// Forgets everything and gives back the memory.
    mutating func removeAll() {
        slots = []
        indexByKey = [:]
        freeSlots = []
        cursor = 0
    }

    /// Examines up to `budget` slots from the cursor and frees the dead ones.
    ///
    /// - Complexity: O(`budget`).
    mutating func sweep(budget: Int) {
        guard !slots.isEmpty else { return }
        for _ in 0..<min(budget, slots.count) {
            if cursor >= slots.count { cursor = 0 }
            if let entry = slots[cursor], entry.storage == nil {
                free(cursor, key: entry.key)
            }
            cursor += 1
        }
    }

    private mutating func free(_ index: Int, key: String) {
        slots[index] = nil
        indexByKey.removeValue(forKey: key)
        freeSlots.append(index)
    }
}
