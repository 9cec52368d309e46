// A second process for DiskStoreTests: writes, reads and removes entries of
// one shared cache directory in a loop and checks that every entry it reads
// is whole and belongs to the key it asked for.
//
// usage: awi-cache-stress <directory> <writer-id> <iterations> <keys>
// Prints "hits H misses M violations V damaged D"; exits 1 when V or D > 0, 2 on misuse.
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

let arguments = CommandLine.arguments
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
