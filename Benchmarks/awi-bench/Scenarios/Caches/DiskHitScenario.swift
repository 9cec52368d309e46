import AWIBenchResults
import AsyncWebImage
import CXXHash
import Foundation
import Glibc

/// A disk-cache hit through `ImageCache.query(cacheType: .disk)`: the
/// `DiskStore` reads the entry (open, fstat, read, trailer check, access
/// time) — on the caller's thread when the kernel can serve it without
/// blocking (lookup and page cache), else on its I/O thread — then the bytes
/// are decoded off the actors with the coder (the cache stores, the caller
/// decodes, as the loader does). The baseline reads
/// the same bytes with open/read(2) in the calling task and decodes them
/// with the same coder.
///
/// Wall time is the basis: a hop to the I/O thread and back, when one is
/// needed, is part of what a disk hit costs a caller, and CPU time would not
/// show it. The entries here are hot (just written), as a server's are.
///
/// Each row's note also gives what the entry's checksum (XXH3-64 of the body,
/// checked on every read) costs of a disk hit: the time of that one call on
/// the same bytes over the median disk hit (issue 12: at most 3 %).
struct DiskHitScenario: Scenario {
    let name = "disk-hit"
    let summary = "ImageCache disk hit (DiskStore read + decode) vs read(2) + decode (target time ≤ 1.1×)"

    private let cases: [(ImageFormat, CorpusImage.Variant, Double)] = [
        (.jpeg, .baseline, 0.3), (.jpeg, .baseline, 2), (.png, .plain, 0.3),
    ]

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("awi-bench-disk-\(getpid())", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // No background cleanup: it would run during the measurement.
        let store = DiskStore(directory: directory, configuration: .init(maxAge: nil, maxSize: nil, cleansUpAtStart: false, cleanupInterval: nil))
        let cache = ImageCache(memory: MemoryCache(configuration: .init(costLimit: 64 << 20)), disk: store)

        var rows: [ResultRow] = []
        var seen = Set<String>()
        for (format, variant, megapixels) in cases {
            guard let file = context.corpus.image(format, variant, megapixels: megapixels), seen.insert(file.path).inserted else { continue }
            rows.append(await context.measureCase(scenario: name, caseName: file.label) {
                try await measure(file, store: store, cache: cache, context: context)
            })
        }
        return rows
    }

    private func measure(_ file: CorpusImage, store: DiskStore, cache: ImageCache, context: BenchmarkContext) async throws -> ResultRow {
        let data = try context.corpus.data(of: file)
        let key = "https://images.example.com/corpus/\(file.name)"
        try await store.setData(data, forKey: key, extendedData: nil)
        // Every query is a disk hit: the cache puts nothing in memory.
        let decoder: any ImageDecoding = file.format == .png ? PNGCoder() : JPEGCoder()
        let path = file.path

        guard let first = try await cache.query(forKey: key, cacheType: .disk), first.source == .disk, let bytes = first.data else {
            throw BenchmarkFailure("the disk tier did not return \(file.name)")
        }
        let image = try decoder.decode(bytes, options: .init())
        let direct = try decoder.decode(try Self.readFile(path), options: .init())
        guard direct.size == image.size else { throw BenchmarkFailure("disk hit decoded \(image.size), direct \(direct.size)") }

        let plan = context.plan(warmup: 3, minIterations: 10, maxIterations: file.megapixels > 1 ? 150 : 600, budget: 3)
        let measurement = try await InterleavedMeasurement.run(
            plan: plan, progress: context.progress,
            ours: {
                try await Sample.inProcess {
                    guard let bytes = try await cache.query(forKey: key, cacheType: .disk)?.data else {
                        throw BenchmarkFailure("disk miss for \(file.name)")
                    }
                    blackHole(try decoder.decode(bytes, options: .init()))
                }
            },
            baseline: {
                try await Sample.inProcess {
                    blackHole(try decoder.decode(try Self.readFile(path), options: .init()))
                }
            }
        )
        var row = ResultRow(
            scenario: name, caseName: file.label, measurement: measurement,
            unitsPerOperation: 1, unit: "img/s", basis: .wall,
            baseline: "read(2)+decode", target: .timeAtMost(1.1)
        )
        if let ours = measurement.ours.median(.cpu), let theirs = measurement.baseline.median(.cpu),
           let hit = measurement.ours.median(.wall) {
            let resident = await store.statistics.residentHits
            let checksum = Self.checksumSeconds(data)
            row.note = "\(file.name), \(file.byteCount / 1024) KB; process-CPU ratio \(Format.ratio(theirs / ours)); "
                + "\(resident > 0 ? "read without blocking on the caller's thread" : "read on DiskStore's I/O thread (no RESOLVE_CACHED)"); "
                + String(format: "checksum %.2f µs = %.2f %% of a hit", checksum * 1e6, checksum / hit * 100)
        }
        return row
    }

    /// Seconds per XXH3-64 of `data` (the disk trailer's checksum, through
    /// the same library call), the median of 15 batches.
    static func checksumSeconds(_ data: Data) -> Double {
        let clock = ContinuousClock()
        let repeats = max(1, (64 << 20) / max(data.count, 1) / 15)
        var batches: [Double] = []
        var sink: UInt64 = 0
        data.withUnsafeBytes { bytes in
            for _ in 0..<15 {
                let start = clock.now
                for _ in 0..<repeats { sink &+= UInt64(awi_xxh3_64(bytes.baseAddress, bytes.count)) }
                let elapsed = clock.now - start
                let (seconds, attoseconds) = elapsed.components
                batches.append((Double(seconds) + Double(attoseconds) * 1e-18) / Double(repeats))
            }
        }
        blackHole(sink)
        return batches.sorted()[batches.count / 2]
    }

    /// The whole file with open + fstat + read(2): the least a program can do.
    static func readFile(_ path: String) throws -> Data {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw BenchmarkFailure("cannot open \(path): errno \(errno)") }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw BenchmarkFailure("cannot stat \(path): errno \(errno)") }
        let size = Int(status.st_size)
        var data = Data(count: size)
        let count = data.withUnsafeMutableBytes { buffer -> Int in
            var offset = 0
            while offset < size {
                let read = Glibc.read(fd, buffer.baseAddress! + offset, size - offset)
                if read <= 0 { break }
                offset += read
            }
            return offset
        }
        guard count == size else { throw BenchmarkFailure("short read of \(path)") }
        return data
    }
}
