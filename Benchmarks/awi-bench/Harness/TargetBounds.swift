import AWIBenchResults

/// What is known to bound each target, case by case: the one place that
/// says why a figure can sit below its target and whether that needs the
/// library to change. ``MissExplanation`` adds what the run itself shows
/// (its noise, the machine's load, the row's measured reference). A miss of
/// a scenario not listed here is marked for a look.
enum TargetBounds {
    /// The known bound of `row`'s case, `nil` when nothing is known.
    static func bound(for row: ResultRow) -> TargetBound? {
        let ratio = row.ratio ?? 0
        let caseName = row.caseName.lowercased()
        switch row.scenario {
        case "decode-full" where caseName.hasPrefix("png"):
            return TargetBound(
                limit: "inflate and unfilter: the coder's one-shot libdeflate inflate against libspng's zlib stream, both bound by inflate",
                needsAction: true, advice: "the inflate or unfilter path slowed: compare png-thumbnail and thumbnail-stages"
            )
        case "decode-full", "avif", "webp-decode", "animated-webp", "gif-animation":
            return sharedDecoder(what: row.baseline ?? "the codec's own call")
        case "heic" where caseName.contains("embedded thumbnail)"):
            return TargetBound(
                limit: "the 512 px embedded thumbnail decoded instead of the primary image: bound by the two images' sizes and libheif's per-image set-up",
                needsAction: true, advice: "check that the embedded thumbnail was used (the row's note) and what libheif's set-up costs"
            )
        case "heic":
            return sharedDecoder(what: "libheif's HEVC decode of the primary image")
        case "icc-convert":
            return TargetBound(
                limit: "a second pass over every decoded pixel (the matrix-shaper fast path), memory-bound at 12 MP",
                needsAction: true, advice: "see the row 'fast path vs its scalar loop' (1.0× means this CPU lacks the vector path) and rerun on an idle machine"
            )
        case "thumbnail":
            return TargetBound(
                limit: "the entropy decode, which no DCT scale skips (libjpeg-turbo decodes every coefficient of every scan)",
                needsAction: true, advice: "compare with the row's reference: the gap is the resample and the scale chosen"
            )
        case "png-thumbnail":
            return TargetBound(
                limit: "every row inflated and unfiltered (PNG has no reduced-size decode): bound by inflate against libspng's full decode",
                needsAction: true, advice: "the streamed inflate (ISA-L) or the box shrink slowed: see thumbnail-stages"
            )
        case "pyvips-thumbnail" where caseName.hasPrefix("webp") || caseName.hasPrefix("heic"):
            return TargetBound(
                limit: "the same decoder on both sides (libwebp's scaled decode, libheif's embedded thumbnail), so parity is about the ceiling",
                needsAction: ratio < 0.9, advice: ratio < 0.9
                    ? "more than 10 % below a shared decoder: the library's work around it grew"
                    : "within 10 % of parity with a decoder both sides share"
            )
        case "pyvips-thumbnail":
            return TargetBound(
                limit: "the same C decoders on both sides (libjpeg-turbo; libspng against libvips's libpng), so the margin is the decode scale and the resample; "
                    + "the generated corpus has 3 to 8 files per class, so one file moves the figure",
                needsAction: true, advice: "rerun on real photos (--corpus DIR, scripts/real-photos DIR) before acting"
            )
        case "thumbnail-quality":
            return TargetBound(
                limit: "deterministic scores for these files: a real difference, though on the generated corpus one file in a class of 3 to 8 moves the median",
                needsAction: true, advice: "look at the class's 4× crops (--report DIR) and rerun on real photos (--corpus DIR)"
            )
        case "cache-rss", "animation-playback-rss":
            return TargetBound(
                limit: "glibc returning freed memory to the kernel (arena trim thresholds): resident memory lags frees",
                needsAction: true, advice: "rerun alone (--scenario \(row.scenario)); a repeat is memory the library holds"
            )
        case "disk-hit":
            return TargetBound(
                limit: "the hop to the DiskStore's I/O thread and back when the page cache cannot serve without blocking, on wall time",
                needsAction: true, advice: "rerun on an idle machine; a repeat means the read path grew (open, fstat, checksum)"
            )
        case "network", "http2-tls":
            return TargetBound(
                limit: "the same libcurl on both sides and one loopback server, client and server sharing 2 cores, on wall time",
                needsAction: true, advice: "rerun on an idle machine; a repeat is the data loader's own work per transfer"
            )
        case "coalescing", "soak":
            return TargetBound(
                limit: "a correctness condition, not a speed: nothing but a bug bounds it",
                needsAction: true, advice: "reproduce with --scenario \(row.scenario) and read the row's note"
            )
        case "loader-coalescing":
            return TargetBound(
                limit: "the runtime: parking and resuming 1,000 tasks costs the same whoever does it (the row's reference)",
                needsAction: true, advice: "compare with the reference; the gap above it is the coalescer's own work"
            )
        case "loader-memory-hit", "start-cancel":
            return TargetBound(
                limit: "the loader's request path on a hit (request keys, options, the memory cache's actor hop), fractions of a microsecond over the bare lookup",
                needsAction: true, advice: "profile ImageLoader.image(url) on a hit against MemoryCache.image(forKey:)"
            )
        case "loader-observability":
            return TargetBound(
                limit: "the metrics and tracing sinks' own cost on a hit of half a microsecond",
                needsAction: true, advice: "compare with the row 'memory hit + tracer vs plain hit + a bare span' (the tracer's own floor)"
            )
        case "revalidation-304", "loader-progressive":
            return TargetBound(
                limit: "a round trip to the loopback origin per load, on wall time",
                needsAction: true, advice: "rerun on an idle machine; a repeat is the loader's work around the request"
            )
        case "thumbnail-server":
            return TargetBound(
                limit: "both servers decode with libjpeg-turbo (about 80 % of a baseline JPEG request's CPU on both), and the default run's rounds are short",
                needsAction: ratio < 0.95, advice: "rerun with --suite server (longer rounds), then profile the request path"
            )
        default:
            return nil
        }
    }

    /// Both sides run the same decoder into the same layout: parity is the
    /// ceiling, and the library's share is what it does around the call.
    private static func sharedDecoder(what: String) -> TargetBound {
        TargetBound(
            limit: "both sides run \(what) on the same file into the same layout: parity is the ceiling",
            needsAction: true, advice: "profile the coder's work around the call (header parsing, orientation, colour, the output copy)"
        )
    }
}
