import AsyncWebImage
import CSpng
import Foundation

/// The images the scenarios decode and serve.
///
/// Generated once into a cache folder (deterministic, so every run and every
/// machine measures the same bytes), or read from `--corpus DIR`. Scenarios
/// ask for "the JPEG closest to 12 MP" rather than for file names, so a
/// user's folder works as well as the generated one.
struct Corpus: Sendable {
    let directory: String
    let images: [CorpusImage]

    /// Loads `directory` when given, else the generated corpus (generating it
    /// first when missing or incomplete).
    static func load(directory: String?, progress: ProgressReporter) throws -> Corpus {
        if let directory {
            let corpus = try scan(directory)
            guard !corpus.images.isEmpty else {
                throw BenchmarkFailure("no JPEG or PNG files in \(directory)")
            }
            return corpus
        }
        let folder = CorpusGenerator.defaultDirectory()
        try CorpusGenerator(directory: folder).generateIfNeeded(progress: progress)
        return try scan(folder)
    }

    /// Describes every JPEG, PNG and WebP file of `directory` from its header.
    static func scan(_ directory: String) throws -> Corpus {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        var images: [CorpusImage] = []
        for name in files where !name.hasPrefix(".") {
            let path = (directory as NSString).appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            switch ImageFormat.detect(data) {
            case .jpeg:
                guard let size = RawTurboJPEG.size(of: data) else { continue }
                let variant: CorpusImage.Variant = JPEGCoder.isProgressive(data) ? .progressive : .baseline
                images.append(CorpusImage(
                    name: name, path: path, format: .jpeg, variant: variant,
                    width: size.width, height: size.height, byteCount: data.count
                ))
            case .png:
                guard let header = RawSpng.header(of: data) else { continue }
                images.append(CorpusImage(
                    name: name, path: path, format: .png, variant: header.interlace_method == 0 ? .plain : .interlaced,
                    width: Int(header.width), height: Int(header.height), byteCount: data.count
                ))
            case .webp:
                guard let size = RawWebP.size(of: data) else { continue }
                images.append(CorpusImage(
                    name: name, path: path, format: .webp, variant: .plain,
                    width: size.width, height: size.height, byteCount: data.count
                ))
            default:
                continue
            }
        }
        return Corpus(directory: directory, images: images)
    }

    /// The image of `format` (and `variant`, when given) whose pixel count is
    /// closest to `megapixels` on a log scale; `nil` when there is none.
    func image(_ format: ImageFormat, _ variant: CorpusImage.Variant? = nil, megapixels: Double) -> CorpusImage? {
        images
            .filter { $0.format == format && (variant == nil || $0.variant == variant) }
            .min { abs(log($0.megapixels / megapixels)) < abs(log($1.megapixels / megapixels)) }
    }

    /// The image of `format` and `variant` whose file size is closest to `bytes`.
    func image(_ format: ImageFormat, _ variant: CorpusImage.Variant, bytes: Int) -> CorpusImage? {
        images
            .filter { $0.format == format && $0.variant == variant }
            .min { abs(log(Double($0.byteCount) / Double(bytes))) < abs(log(Double($1.byteCount) / Double(bytes))) }
    }

    /// The file's bytes.
    func data(of image: CorpusImage) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: image.path))
    }
}
