// A second process for DiskStoreTests: writes, reads and removes entries of
// one shared cache directory in a loop and checks that every entry it reads
// is whole and belongs to the key it asked for.
//
// usage: awi-cache-stress <directory> <writer-id> <iterations> <keys>
// Prints "hits H misses M violations V damaged D"; exits 1 when V or D > 0, 2 on misuse.
//
// usage: awi-cache-stress --loader <directory> <base-url> <images> <iterations>
// For FaultCacheTests: loads <base-url>/img/<i>.png through an ImageLoader whose
// only cache tier is the shared disk directory, removing entries now and then,
// and checks every image's pixels (width 8 + i, every pixel pixelValue(i)).
// Prints "loads L disk D network N wrong W errors E"; exits 1 when W or E > 0.
//
// usage: awi-cache-stress --full-loader <directory> <small-url> <big-url>
// For FaultCacheTests: a full device under an ImageLoader. Caches the small
// image, lowers RLIMIT_FSIZE, loads the big one: it must load (the failed disk
// write is not the caller's failure), stay off the disk, and the small one must
// still come from disk in a new loader. Prints "ok".
//
// usage: awi-cache-stress --full <directory>
// Stands for a full device: lowers RLIMIT_FSIZE (for this process only) so
// that large writes fail, and checks they fail with .diskIO(EFBIG) while the
// entry already cached stays whole and no temporary file is left. Prints "ok".
import AsyncWebImage
import Foundation

/// FNV-1a, 64 bits: enough to tell a whole payload from a torn or foreign one.
func checksum(_ bytes: some Sequence<UInt8>) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
    return hash
}

func littleEndian(_ value: UInt64) -> [UInt8] {
    (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
}

/// `[key length][key][writer][body length: 4][body][checksum of all before: 8]`.
func payload(key: String, writer: UInt8, size: Int) -> Data {
    var bytes = [UInt8(key.utf8.count)] + Array(key.utf8) + [writer]
    bytes += (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) }
    bytes += (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(writer)) }
    bytes += littleEndian(checksum(bytes))
    return Data(bytes)
}

func isWhole(_ data: Data, key: String) -> Bool {
    let bytes = [UInt8](data)
    guard bytes.count > 8, Int(bytes[0]) == key.utf8.count, bytes.count >= 1 + Int(bytes[0]) + 5 + 8,
          Array(bytes[1...Int(bytes[0])]) == Array(key.utf8) else { return false }
    let sizeStart = 2 + Int(bytes[0])
    let size = (0..<4).reduce(0) { $0 | Int(bytes[sizeStart + $1]) << (8 * $1) }
    guard bytes.count == sizeStart + 4 + size + 8 else { return false }
    return Array(bytes.suffix(8)) == littleEndian(checksum(bytes.dropLast(8)))
}

/// The `--full` mode; returns a failure description, or nil.
func fullDeviceCheck(directory: String) async throws -> String? {
    let store = DiskStore(
        directory: URL(fileURLWithPath: directory),
        configuration: .init(maxSize: nil, cleansUpAtStart: false, cleanupInterval: nil))
    let kept = payload(key: "kept", writer: 1, size: 100)
    try await store.setData(kept, forKey: "kept", extendedData: Data("meta".utf8))
    // Exceeding the limit raises SIGXFSZ, which would kill the process; ignored, write(2) fails with EFBIG.
    signal(SIGXFSZ, SIG_IGN)
    var limit = rlimit(rlim_cur: 4096, rlim_max: 4096)
    guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0 else { return "setrlimit failed" }
    for key in ["big", "kept"] {
        do {
            try await store.setData(payload(key: key, writer: 2, size: 10_000), forKey: key)
            return "a write over the file size limit succeeded"
        } catch let ImageError.diskIO(_, code, _) {
            guard code == EFBIG else { return "errno \(code), expected EFBIG" }
        }
    }
    guard try await store.data(forKey: "kept") == kept else { return "the cached entry changed" }
    guard try await store.extendedData(forKey: "kept") == Data("meta".utf8) else { return "its extended data changed" }
    guard await !store.contains("big") else { return "a partial entry exists" }
    let names = try FileManager.default.contentsOfDirectory(atPath: directory)
    guard names.count == 1 else { return "files left: \(names)" }
    guard await store.statistics.failedWrites == 2 else { return "failed writes not counted" }
    return nil
}

/// The gray value of every pixel of image `index` in the `--loader` mode.
func pixelValue(_ index: Int) -> UInt8 { UInt8(truncatingIfNeeded: 40 + index * 13) }

/// The `--loader` mode; returns the summary line and whether it is clean.
///
/// Returns only once the loader is released (waiting 10 s at most), that is
/// once the cache stores it did not await have ended, so the process exits
/// with nothing in flight: LeakSanitizer (`scripts/sanitize address`) takes
/// Swift objects still alive at exit for leaks when it reaches them only
/// through bit-stuffed pointers (a weak reference's side table, a `Data`'s
/// storage).
func loaderStress(directory: String, base: String, images: Int, iterations: Int) async -> (String, Bool) {
    weak var released: ImageLoader?
    let result: (String, Bool)
    do {
        let (loader, disk) = stressLoader(directory: directory)
        released = loader
        result = await stressLoads(loader, disk, base: base, images: images, iterations: iterations)
    }
    for _ in 0..<10_000 where released != nil { try? await Task.sleep(for: .milliseconds(1)) }
    return result
}

/// A loader whose only cache tier is the disk store in `directory`, and that store.
func stressLoader(directory: String) -> (ImageLoader, DiskStore) {
    let disk = DiskStore(
        directory: URL(fileURLWithPath: directory),
        configuration: .init(maxSize: nil, cleansUpAtStart: false, cleanupInterval: nil))
    var configuration = ImageLoader.Configuration(cache: ImageCache(memory: MemoryCache(), disk: disk))
    configuration.dataLoader = CurlDataLoader()
    // The disk is the only tier, so every hit is a read of the shared directory.
    configuration.defaultContext.storeCacheType = .disk
    configuration.defaultContext.queryCacheType = .disk
    return (ImageLoader(configuration: configuration), disk)
}

/// The loads of the `--loader` mode.
func stressLoads(_ loader: ImageLoader, _ disk: DiskStore, base: String, images: Int, iterations: Int) async -> (String, Bool) {
    var loads = 0, fromDisk = 0, fromNetwork = 0, wrong = 0, errors = 0
    for iteration in 0..<iterations {
        let index = Int.random(in: 0..<images)
        guard let url = URL(string: "\(base)/img/\(index).png") else { return ("bad base URL", false) }
        if iteration % 7 == 6 {
            do { try await disk.removeData(forKey: url.absoluteString) } catch { errors += 1 }
            continue
        }
        do {
            let response = try await loader.response(url, options: iteration % 2 == 0 ? .waitStoreCache : [])
            loads += 1
            if response.source == .disk { fromDisk += 1 } else { fromNetwork += 1 }
            let image = response.image
            guard image.width == 8 + index, image.height == 8,
                  (0..<image.height).allSatisfy({ y in (0..<image.width).allSatisfy { image.pixel(x: $0, y: y)?.first == pixelValue(index) } })
            else {
                wrong += 1
                continue
            }
        } catch {
            errors += 1
        }
    }
    return ("loads \(loads) disk \(fromDisk) network \(fromNetwork) wrong \(wrong) errors \(errors)", wrong == 0 && errors == 0)
}

/// The `--full-loader` mode; returns a failure description, or nil.
func fullDeviceLoaderCheck(directory: String, small: URL, big: URL) async throws -> String? {
    func makeLoader() -> (ImageLoader, DiskStore) {
        let disk = DiskStore(
            directory: URL(fileURLWithPath: directory),
            configuration: .init(maxSize: nil, cleansUpAtStart: false, cleanupInterval: nil))
        var configuration = ImageLoader.Configuration(cache: ImageCache(memory: MemoryCache(), disk: disk))
        configuration.dataLoader = CurlDataLoader()
        return (ImageLoader(configuration: configuration), disk)
    }
    let (loader, disk) = makeLoader()
    let smallImage = try await loader.response(small, options: .waitStoreCache).image
    guard await disk.contains(small.absoluteString) else { return "the small image was not stored" }
    signal(SIGXFSZ, SIG_IGN)
    var limit = rlimit(rlim_cur: 4096, rlim_max: 4096)
    guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0 else { return "setrlimit failed" }
    let bigResponse = try await loader.response(big, options: .waitStoreCache)
    guard bigResponse.source == .network else { return "the big image did not load" }
    guard await !disk.contains(big.absoluteString) else { return "the big image is on a full disk" }
    guard await disk.statistics.failedWrites == 1 else { return "failed writes: \(await disk.statistics.failedWrites)" }
    guard try await loader.response(big).source == .memory else { return "the big image is not in memory" }
    let (restarted, _) = makeLoader()
    let again = try await restarted.response(small)
    guard again.source == .disk else { return "the small image was lost from disk" }
    guard again.image == smallImage else { return "the small image changed" }
    let names = try FileManager.default.contentsOfDirectory(atPath: directory)
    guard names.count == 1 else { return "files left: \(names)" }
    return nil
}

let arguments = CommandLine.arguments
if arguments.count == 6 && arguments[1] == "--loader", let images = Int(arguments[4]), let iterations = Int(arguments[5]) {
    let (summary, clean) = await loaderStress(directory: arguments[2], base: arguments[3], images: images, iterations: iterations)
    print(summary)
    exit(clean ? 0 : 1)
}
if arguments.count == 5 && arguments[1] == "--full-loader", let small = URL(string: arguments[3]), let big = URL(string: arguments[4]) {
    if let failure = try await fullDeviceLoaderCheck(directory: arguments[2], small: small, big: big) {
        print("failed: \(failure)")
        exit(1)
    }
    print("ok")
    exit(0)
}
if arguments.count == 3 && arguments[1] == "--full" {
    if let failure = try await fullDeviceCheck(directory: arguments[2]) {
        print("failed: \(failure)")
        exit(1)
    }
    print("ok")
    exit(0)
}
guard arguments.count == 5, let writer = UInt8(arguments[2]), let iterations = Int(arguments[3]),
      let keyCount = Int(arguments[4]), keyCount > 0 else {
    print("usage: awi-cache-stress <directory> <writer-id> <iterations> <keys>")
    exit(2)
}
let store = DiskStore(
    directory: URL(fileURLWithPath: arguments[1]),
    configuration: .init(maxSize: nil, cleansUpAtStart: false, cleanupInterval: nil))
var hits = 0, misses = 0, violations = 0
for iteration in 0..<iterations {
    let key = "https://example.com/\(Int.random(in: 0..<keyCount)).png"
    if iteration % 10 == 9 {
        try await store.removeData(forKey: key)
    } else {
        let data = payload(key: key, writer: writer, size: Int.random(in: 0..<50_000))
        try await store.setData(data, forKey: key, extendedData: Data(littleEndian(checksum(data))))
    }
    let readKey = "https://example.com/\(Int.random(in: 0..<keyCount)).png"
    if let (data, extendedData) = try await store.dataWithExtendedData(forKey: readKey) {
        hits += 1
        // The extended attribute is written before the rename, so it always matches the data.
        if !isWhole(data, key: readKey) || extendedData != Data(littleEndian(checksum(data))) { violations += 1 }
    } else {
        misses += 1
    }
}
// A torn file would be caught by the trailer check and counted as damaged: with
// atomic renames there must be none.
let damaged = await store.statistics.damagedEntries
print("hits \(hits) misses \(misses) violations \(violations) damaged \(damaged)")
exit(violations == 0 && damaged == 0 ? 0 : 1)
