import AWIBenchResults
import AsyncWebImage
import Foundation

/// What converting to sRGB costs a decode: the 12 MP baseline JPEG (and the
/// 12 MP PNG, re-encoded with an `iCCP` chunk) with an Adobe RGB profile embedded, decoded by `JPEGCoder` with the default
/// options (lcms2 conversion on the decode thread, cached transform)
/// against the same decode keeping the profile (no conversion).
///
/// The target: the conversion costs at most 25 % of the decode,
/// i.e. the converting decode's throughput is at least 0.8× the other's.
/// Three more rows, each interleaved with its own baseline, take the
/// conversion apart: ``Image/convertedToSRGB()`` of the kept decode (the
/// library's matrix/TRC fast path, into a new image, so it also pays that
/// image's allocation and page faults, which the in-place conversion of the
/// decode does not) against the decode, the same conversion through lcms2's
/// transform against the decode (for reference), and the fast path against
/// lcms2 (the speed-up), and the fast path against its own scalar loop
/// (what its AVX-512 path saves, where the CPU has AVX-512 VBMI).
struct ICCConversionScenario: Scenario {
    let name = "icc-convert"
    let summary = "12 MP Adobe RGB JPEG: decode converting in place (fast path) vs keeping the profile (≥ 0.8×: the conversion ≤ 25 % of the decode); convertedToSRGB() of a kept decode (fast path, lcms2) vs the decode and vs each other; the fast path vs its scalar loop"

    /// Where Debian's icc-profiles-free puts its Adobe RGB compatible profile.
    static let profilePath = "/usr/share/color/icc/compatibleWithAdobeRGB1998.icc"

    func run(in context: BenchmarkContext) async throws -> [ResultRow] {
        guard let file = context.corpus.image(.jpeg, .baseline, megapixels: 12) else {
            throw ScenarioSkipped("no 12 MP baseline JPEG in the corpus")
        }
        guard let profile = FileManager.default.contents(atPath: Self.profilePath) else {
            throw ScenarioSkipped("\(Self.profilePath) missing (Debian package icc-profiles-free)")
        }
        let tagged = try Self.embedding(profile, in: context.corpus.data(of: file))
        var rows = [await context.measureCase(scenario: name, caseName: file.label) {
            try await measure(tagged, file: file, coder: JPEGCoder(), label: file.label, context: context)
        }]
        if let png = context.corpus.image(.png, .plain, megapixels: 12) {
            // The formats whose decoders hand ColorManager their image (PNG,
            // WebP, AVIF, HEIC, ...) convert in that image's buffer too.
            rows.append(await context.measureCase(scenario: name, caseName: "\(png.label) PNG") {
                let plain = try PNGCoder().decode(context.corpus.data(of: png), options: ImageDecodingOptions())
                let taggedPNG = try PNGCoder().encode(plain.with(colorProfile: profile, conversion: .kept), as: .png, quality: 1)
                return try await measure(taggedPNG, file: png, coder: PNGCoder(), label: "\(png.label) PNG", context: context)
            })
        }
        let kept = try JPEGCoder().decode(tagged, options: ImageDecodingOptions(keepsColorProfile: true))
        let decode = { try Sample.onThread { blackHole(try JPEGCoder().decode(tagged, options: ImageDecodingOptions(keepsColorProfile: true))) } }
        let fast = { Sample.onThread { blackHole(kept.convertedToSRGB()) } }
        let lcms = { Sample.onThread { blackHole(kept.convertedToSRGB(usingFastPath: false)) } }
        let scalar = { Sample.onThread { blackHole(kept.convertedToSRGB(usingFastPath: true, vectorized: false)) } }
        let fastResult = kept.convertedToSRGB(), lcmsResult = kept.convertedToSRGB(usingFastPath: false)
        let difference = fastResult.maximumChannelDifference(from: lcmsResult).map(String.init) ?? "?"
        // The vector path (where the CPU has one) must give the scalar loop's bytes.
        let scalarResult = kept.convertedToSRGB(usingFastPath: true, vectorized: false)
        guard fastResult.withUnsafeBytes({ fast in scalarResult.withUnsafeBytes { fast.elementsEqual($0) } }) else {
            throw BenchmarkFailure("the fast path's vector path and scalar loop convert this image to different bytes")
        }
        let againstLcms = "fast path vs lcms2 on this image: max difference \(difference)"
        let parts: [(String, () throws -> Sample, () throws -> Sample, String, String)] = [
            // Out of place: a new 36 MB image, whose page faults cost more than the
            // conversion; the decode converts in place, and the first row's ≥ 0.8×
            // (the conversion ≤ 25 % of the decode) is the target.
            ("convertedToSRGB() alone (a new image), fast path", fast, decode, "the decode (keeping the profile)", againstLcms),
            ("convertedToSRGB() alone (a new image), lcms2", lcms, decode, "the decode (keeping the profile)", againstLcms),
            ("fast path vs lcms2", fast, lcms, "lcms2's transform (cached, 8-bit)", againstLcms),
            // Both into a new image (the same allocation and page faults):
            // 1.0× where the CPU has no AVX-512 VBMI.
            (
                "fast path vs its scalar loop", fast, scalar, "the fast path's scalar loop",
                "vector path vs scalar loop on this image: the same bytes"
            ),
        ]
        for (caseName, ours, baseline, baselineName, comparison) in parts {
            rows.append(await context.measureCase(scenario: name, caseName: "\(file.label) \(caseName)") {
                let plan = context.plan(warmup: 2, minIterations: 5, maxIterations: 25, budget: 8)
                let measurement = try await InterleavedMeasurement.run(
                    plan: plan, progress: context.progress, ours: { try ours() }, baseline: { try baseline() }
                )
                var row = ResultRow(
                    scenario: name, caseName: "\(file.label) \(caseName)", measurement: measurement,
                    unitsPerOperation: file.megapixels, unit: "MP/s", basis: .cpu, baseline: baselineName, target: nil
                )
                row.note = "ratio = baseline time / this time; \(comparison)"
                return row
            })
        }
        return rows
    }

    private func measure(
        _ data: Data, file: CorpusImage, coder: some ImageDecoding, label: String, context: BenchmarkContext
    ) async throws -> ResultRow {
        let converting = ImageDecodingOptions()
        let keeping = ImageDecodingOptions(keepsColorProfile: true)
        let check = try coder.decode(data, options: converting)
        guard check.colorConversion == .converted, try coder.decode(data, options: keeping).colorConversion == .kept else {
            throw BenchmarkFailure("the tagged file was not converted (\(check.colorConversion))")
        }
        let plan = context.plan(warmup: 2, minIterations: 5, maxIterations: 25, budget: 8)
        let measurement = try await InterleavedMeasurement.run(
            plan: plan, progress: context.progress,
            ours: { try Sample.onThread { blackHole(try coder.decode(data, options: converting)) } },
            baseline: { try Sample.onThread { blackHole(try coder.decode(data, options: keeping)) } }
        )
        var row = ResultRow(
            scenario: name, caseName: label, measurement: measurement,
            unitsPerOperation: file.megapixels, unit: "MP/s", basis: .cpu,
            baseline: "decode keeping the profile", target: .ratioAtLeast(0.8)
        )
        row.note = "\(file.name) with the Adobe RGB profile embedded (\(data.count) bytes); ratio = conversion-free time / converting time"
        return row
    }

    /// `jpeg` with `profile` as one APP2 `ICC_PROFILE` segment after SOI.
    static func embedding(_ profile: Data, in jpeg: Data) throws -> Data {
        guard profile.count <= 65_519, jpeg.count > 2 else { throw BenchmarkFailure("profile too large for one APP2") }
        let length = 2 + 14 + profile.count
        var data = Data(jpeg.prefix(2))
        data.append(contentsOf: [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)])
        data.append(contentsOf: Array("ICC_PROFILE".utf8) + [0, 1, 1])
        data.append(profile)
        data.append(jpeg.dropFirst(2))
        return data
    }
}
