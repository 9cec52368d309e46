import Foundation

/// Writes the generated corpus with raw TurboJPEG and libspng (not with the
/// library being measured, so a coder bug cannot shape its own test data).
struct CorpusGenerator: Sendable {
    /// Bump when the content changes, so old folders are not reused.
    static let version = 1

    /// Pixel sizes of the generated images: 0.3, 2 and 12 megapixels.
    static let sizes: [(label: String, width: Int, height: Int)] = [
        ("0.3mp", 640, 480), ("2mp", 1920, 1080), ("12mp", 4000, 3000),
    ]

    /// The file the progressive scenario trickles: a progressive JPEG of about 2 MB.
    static let progressiveName = "jpeg-progressive-2mb.jpg"
    static let progressiveTargetBytes = 2_000_000

    let directory: String

    /// `$XDG_CACHE_HOME/awi-bench/corpus-vN`, else `~/.cache/...`, else the temporary directory.
    static func defaultDirectory() -> String {
        let environment = ProcessInfo.processInfo.environment
        let base: String
        if let cache = environment["XDG_CACHE_HOME"], !cache.isEmpty {
            base = cache
        } else if let home = environment["HOME"], !home.isEmpty {
            base = home + "/.cache"
        } else {
            base = NSTemporaryDirectory()
        }
        return base + "/awi-bench/corpus-v\(version)"
    }

    /// The bytes of `name` beside the generated corpus (a folder path may
    /// lead it), made on first use by `make`, which writes the file at the
    /// path it is given; the file is renamed into place whole, so a run cut
    /// short leaves nothing half-written. For files slow to encode (AVIF,
    /// HEIC) that every run would otherwise make again.
    static func cachedFile(_ name: String, make: (_ path: String) throws -> Void) throws -> Data {
        let path = defaultDirectory() + "/" + name
        if let data = FileManager.default.contents(atPath: path), !data.isEmpty { return data }
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let partial = path + ".partial"
        try make(partial)
        guard rename(partial, path) == 0 else { throw BenchmarkFailure("could not rename \(partial) (errno \(errno))") }
        guard let data = FileManager.default.contents(atPath: path) else { throw BenchmarkFailure("could not read \(path)") }
        return data
    }

    /// The corpus's synthetic photograph of each size from 2 MP up, encoded
    /// by `encode` (pixels as packed RGB8, width, height, the path to write)
    /// into the cached file `name(sizeLabel)`, for the scenarios of codecs
    /// whose encoders are too slow to run each time (AVIF, HEIC). A size
    /// whose file could not be made carries its error, for its row.
    static func encodedPhotos(
        named name: (String) -> String, encode: (_ rgb: [UInt8], _ width: Int, _ height: Int, _ path: String) throws -> Void
    ) -> [(label: String, megapixels: Double, file: Result<Data, any Error>)] {
        sizes.enumerated().filter { $0.element.label != "0.3mp" }.map { index, size in
            let file = Result { () throws(any Error) -> Data in
                try cachedFile(name(size.label)) { path in
                    try encode(SyntheticPhoto.rgb(width: size.width, height: size.height, seed: UInt64(index + 1)), size.width, size.height, path)
                }
            }
            return (size.label, Double(size.width * size.height) / 1_000_000, file)
        }
    }

    /// Every file the generator writes, with how to make it.
    private var plan: [(name: String, make: @Sendable () throws -> Data)] {
        var plan: [(String, @Sendable () throws -> Data)] = []
        for (index, size) in Self.sizes.enumerated() {
            let seed = UInt64(index + 1)
            let (width, height) = (size.width, size.height)
            for progressive in [false, true] {
                plan.append(("jpeg-\(progressive ? "progressive" : "baseline")-\(size.label).jpg", {
                    try RawTurboJPEG.encode(
                        rgb: SyntheticPhoto.rgb(width: width, height: height, seed: seed),
                        width: width, height: height, quality: 85, progressive: progressive
                    )
                }))
            }
            for interlaced in [false, true] {
                plan.append(("png-\(interlaced ? "interlaced" : "plain")-\(size.label).png", {
                    try RawSpng.encode(
                        rgb: SyntheticPhoto.rgb(width: width, height: height, seed: seed),
                        width: width, height: height, interlaced: interlaced
                    )
                }))
            }
        }
        plan.append((Self.progressiveName, { try Self.progressiveOfAbout2MB() }))
        return plan
    }

    /// Generates the files that are missing. A marker written last says the
    /// folder is complete; files are written atomically, so an interrupted
    /// run leaves no half file behind.
    func generateIfNeeded(progress: ProgressReporter) throws {
        let marker = directory + "/.complete"
        let files = FileManager.default
        if files.fileExists(atPath: marker) { return }
        try files.createDirectory(atPath: directory, withIntermediateDirectories: true)
        progress.message("generating the corpus in \(directory) (once; about a minute)")
        for (name, make) in plan {
            let path = directory + "/" + name
            if files.fileExists(atPath: path) { continue }
            let start = ResourceUsage.wallSeconds()
            let data = try make()
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
            progress.message(String(format: "  %@: %.1f MB in %.1f s", name, Double(data.count) / 1e6, ResourceUsage.wallSeconds() - start))
        }
        try Data("awi-bench corpus v\(Self.version)\n".utf8).write(to: URL(fileURLWithPath: marker), options: .atomic)
    }

    /// A progressive JPEG whose size is close to 2 MB: a 3.8 MP picture at
    /// the quality (found by bisection, at most 6 encodes) that lands nearest.
    private static func progressiveOfAbout2MB() throws -> Data {
        let (width, height) = (2400, 1600)
        let rgb = SyntheticPhoto.rgb(width: width, height: height, seed: 42)
        var low = 50, high = 98
        var best: Data?
        for _ in 0..<6 where low <= high {
            let quality = (low + high) / 2
            let data = try RawTurboJPEG.encode(rgb: rgb, width: width, height: height, quality: quality, progressive: true)
            if best == nil || abs(data.count - progressiveTargetBytes) < abs(best!.count - progressiveTargetBytes) {
                best = data
            }
            if data.count < progressiveTargetBytes { low = quality + 1 } else { high = quality - 1 }
        }
        return best!
    }
}
