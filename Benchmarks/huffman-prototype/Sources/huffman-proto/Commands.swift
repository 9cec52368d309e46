import BaselineDC
import CTurboJPEG
import Glibc

/// The three things the prototype is judged by: exactness on files, speed, and exactness
/// under mutation.
enum Commands {
    static func read(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        fseek(file, 0, SEEK_END)
        let size = ftell(file)
        fseek(file, 0, SEEK_SET)
        guard size > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: size)
        let got = bytes.withUnsafeMutableBytes { fread($0.baseAddress, 1, size, file) }
        return got == size ? bytes : nil
    }

    /// Per file: ours, libjpeg-turbo (strict), and whether the planes are identical.
    static func verify(_ paths: [String]) -> Int32 {
        var counts: [String: Int] = [:]
        for path in paths {
            guard let bytes = read(path) else { continue }
            let reference = TurboReference()
            let outcome: String = bytes.withUnsafeBufferPointer { buffer in
                let ours = Result { () throws(DCDecodeFallback) in try DCOnlyDecoder.decode(buffer) }
                guard let header = reference.header(buffer),
                      let planes = reference.makePlanes(width: header.width, height: header.height, subsampling: header.subsampling) else {
                    if case .failure(let fallback) = ours { return "both-refuse (ours: \(fallback))" }
                    return "turbo-refuses-header"
                }
                let turboOK = reference.decodeYUV(buffer, width: header.width, height: header.height, into: planes, strict: true)
                switch ours {
                case .failure(let fallback):
                    return turboOK ? "fallback (\(fallback.reason.rawValue))" : "both-refuse"
                case .success(let dc):
                    guard turboOK else { return "turbo-warns-ours-decodes" }
                    if let difference = Comparison.firstDifference(dc, planes) { return "MISMATCH \(difference)" }
                    return "identical"
                }
            }
            let key = outcome.hasPrefix("MISMATCH") ? "MISMATCH" : String(outcome.prefix { $0 != " " })
            counts[key, default: 0] += 1
            print("\(outcome)\t\(path)")
        }
        print("summary: " + counts.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
        return counts["MISMATCH", default: 0] == 0 ? 0 : 1
    }

    static func threadNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Two decimals, without Foundation.
    static func fixed(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let fraction = abs(hundredths) % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// Thread-CPU ns per megapixel of ours, libjpeg-turbo raw (YUV) and libjpeg-turbo
    /// RGB/grey at 1/8, in interleaved rounds; the median of `rounds` per file.
    static func bench(_ paths: [String], rounds: Int) {
        let reference = TurboReference()
        print("file\tclass\tMP\tours_ns_per_MP\tturbo_yuv_ns_per_MP\tturbo_rgb_ns_per_MP\tvs_yuv\tvs_rgb")
        var ratiosByClass: [String: [(Double, Double)]] = [:]
        for path in paths {
            guard let bytes = read(path) else { continue }
            bytes.withUnsafeBufferPointer { buffer in
                guard (try? DCOnlyDecoder.decode(buffer)) != nil, let header = reference.header(buffer),
                      let planes = reference.makePlanes(width: header.width, height: header.height, subsampling: header.subsampling) else {
                    print("skip (outside the fast path)\t\(path)")
                    return
                }
                let megapixels = Double(header.width * header.height) / 1e6
                let grey = header.subsampling == TJSAMP_GRAY.rawValue
                let pixels = UnsafeMutablePointer<UInt8>.allocate(capacity: ((header.width + 7) / 8) * ((header.height + 7) / 8) * 3)
                defer { pixels.deallocate() }
                // Repeat each decode within a round so one timing covers ≥ ~20 ms.
                let probeStart = threadNanoseconds()
                _ = reference.decodeYUV(buffer, width: header.width, height: header.height, into: planes, strict: false)
                let probe = max(1, threadNanoseconds() - probeStart)
                let repeats = max(1, Int(20_000_000 / probe))
                var ours: [Double] = [], yuv: [Double] = [], rgb: [Double] = []
                for _ in 0..<rounds {
                    var start = threadNanoseconds()
                    for _ in 0..<repeats { _ = try? DCOnlyDecoder.decode(buffer) }
                    ours.append(Double(threadNanoseconds() - start) / Double(repeats))
                    start = threadNanoseconds()
                    for _ in 0..<repeats { _ = reference.decodeYUV(buffer, width: header.width, height: header.height, into: planes, strict: false) }
                    yuv.append(Double(threadNanoseconds() - start) / Double(repeats))
                    start = threadNanoseconds()
                    for _ in 0..<repeats { _ = reference.decodePixels(buffer, width: header.width, height: header.height, grey: grey, into: pixels) }
                    rgb.append(Double(threadNanoseconds() - start) / Double(repeats))
                }
                let (o, y, r) = (median(ours) / megapixels, median(yuv) / megapixels, median(rgb) / megapixels)
                let samplingName = ["444", "422", "420", "gray", "440", "411"][Int(header.subsampling)]
                let directory = path.split(separator: "/").dropLast().last.map(String.init) ?? "."
                let fileClass = "\(directory)/\(samplingName)"
                ratiosByClass[fileClass, default: []].append((y / o, r / o))
                print("\(path)\t\(fileClass)\t\(fixed(megapixels))\t\(Int(o))\t\(Int(y))\t\(Int(r))\t\(fixed(y / o))\t\(fixed(r / o))")
            }
        }
        print("class\tfiles\tmedian_speedup_vs_turbo_yuv\tmedian_speedup_vs_turbo_rgb\tmin_vs_yuv")
        for (fileClass, ratios) in ratiosByClass.sorted(by: { $0.key < $1.key }) {
            print("\(fileClass)\t\(ratios.count)\t\(fixed(median(ratios.map(\.0))))\t\(fixed(median(ratios.map(\.1))))\t\(fixed(ratios.map(\.0).min()!))")
        }
        let all = ratiosByClass.values.flatMap { $0 }
        print("all\t\(all.count)\t\(fixed(median(all.map(\.0))))\t\(fixed(median(all.map(\.1))))\t\(fixed(all.map(\.0).min() ?? 0))")
    }

    static func loopTurboYUV(_ path: String, count: Int) {
        guard let bytes = read(path) else { return }
        let reference = TurboReference()
        bytes.withUnsafeBufferPointer { buffer in
            guard let header = reference.header(buffer),
                  let planes = reference.makePlanes(width: header.width, height: header.height, subsampling: header.subsampling) else { return }
            for _ in 0..<count {
                _ = reference.decodeYUV(buffer, width: header.width, height: header.height, into: planes, strict: false)
            }
        }
    }

    /// Seeded byte mutations of valid files; a finding is any case where libjpeg-turbo
    /// decodes without a warning, ours decodes too, and the planes differ.
    static func fuzz(_ paths: [String], iterations: Int, seed: UInt64) -> Int32 {
        let seeds = paths.compactMap(read)
        guard !seeds.isEmpty else { return 2 }
        // splitmix-style scrambling, so that neighbouring seeds give unrelated streams.
        var state = (seed &+ 1) &* 0x9E37_79B9_7F4A_7C15 | 1
        func next() -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(truncatingIfNeeded: state >> 1)
        }
        var tally: [String: Int] = [:]
        var findings = 0
        var reasons: [String: Int] = [:]
        for iteration in 0..<iterations {
            var bytes = seeds[iteration % seeds.count]
            let scanStart = BaselineOffsets.scanStart(bytes) ?? 2
            for _ in 0..<(1 + next() % 4) {
                // Mostly the entropy data, sometimes the headers, where tables and sizes live.
                let inHeader = next() % 4 == 0
                let low = inHeader ? 2 : scanStart
                guard bytes.count > low + 1 else { break }
                let at = low + next() % (bytes.count - low)
                switch next() % 8 {
                case 0, 1, 2: bytes[at] ^= UInt8(1 << (next() % 8))
                case 3: bytes[at] = UInt8(truncatingIfNeeded: next())
                case 4: bytes[at] = [0xFF, 0x00, 0xD0, 0xD9, 0xD1][next() % 5]
                case 5: bytes.insert(UInt8(truncatingIfNeeded: next()), at: at)
                case 6: bytes.remove(at: at)
                default: bytes.removeLast(min(bytes.count - low - 1, 1 + next() % 64))
                }
            }
            if let trace = getenv("HUFFMAN_FUZZ_TRACE"), let file = fopen(trace, "wb") {
                _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
                fclose(file)
            }
            // A fresh handle each time: after some failures a TurboJPEG 2.1 handle keeps
            // failing on good files (seen as a sticky "Unsupported marker type").
            let reference = TurboReference()
            let outcome: String = bytes.withUnsafeBufferPointer { buffer in
                let ours = Result { () throws(DCDecodeFallback) in try DCOnlyDecoder.decode(buffer) }
                var turboOK = false
                var planes: TurboReference.Planes?
                if let header = reference.header(buffer),
                   let made = reference.makePlanes(width: header.width, height: header.height, subsampling: header.subsampling) {
                    turboOK = reference.decodeYUV(buffer, width: header.width, height: header.height, into: made, strict: true)
                    planes = made
                }
                switch (ours, turboOK) {
                case (.success(let dc), true):
                    if let difference = Comparison.firstDifference(dc, planes!) {
                        findings += 1
                        let name = "/tmp/huffman-finding-\(seed)-\(iteration).jpg"
                        if let file = fopen(name, "wb") {
                            _ = fwrite(buffer.baseAddress, 1, buffer.count, file)
                            fclose(file)
                        }
                        print("FINDING iteration \(iteration): \(difference) -> \(name)")
                        return "finding"
                    }
                    return "both-decode-identical"
                case (.success, false):
                    reasons[reference.lastError, default: 0] += 1
                    if reasons.values.reduce(0, +) <= 3, let file = fopen("/tmp/huffman-turbo-refused-\(seed)-\(iteration).jpg", "wb") {
                        _ = fwrite(buffer.baseAddress, 1, buffer.count, file)
                        fclose(file)
                    }
                    return "turbo-warns-or-fails-ours-decodes"
                case (.failure, true): return "ours-falls-back-turbo-decodes"
                case (.failure, false): return "both-refuse"
                }
            }
            tally[outcome, default: 0] += 1
        }
        print("fuzz seed \(seed), \(iterations) iterations over \(seeds.count) files: " + tally.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
        for (reason, count) in reasons.sorted(by: { $0.value > $1.value }).prefix(8) {
            print("  libjpeg-turbo refused, ours decoded: \(count)× \(reason)")
        }
        return findings == 0 ? 0 : 1
    }
}

/// Where the entropy data starts, so that most mutations land in it.
enum BaselineOffsets {
    static func scanStart(_ bytes: [UInt8]) -> Int? {
        var position = 2
        while position + 4 <= bytes.count, bytes[position] == 0xFF {
            let marker = bytes[position + 1]
            let length = Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
            if marker == 0xDA { return position + 2 + length }
            position += 2 + length
        }
        return nil
    }
}
