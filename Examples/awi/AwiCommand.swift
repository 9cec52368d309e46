// awi: fetch one image by URL with AsyncWebImage and write it as PNG or JPEG.
import ArgumentParser
import AsyncWebImage
import AsyncWebImageAllFormats
import Foundation
import HTTPTypes

/// The `awi` command: loads one image through ``ImageLoader`` (optionally as
/// a thumbnail, transformed) and writes it as PNG or JPEG.
///
/// Exit codes follow sysexits(3): 0 success, 64 a bad command line (usage on
/// stderr), 65 bytes that are not a decodable image, 69 a network, HTTP or
/// limit failure, 73 an output file that cannot be written, 70 anything else.
@main
struct AwiCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "awi",
        abstract: "Fetch one image by URL with AsyncWebImage and write it as PNG or JPEG.",
        discussion: """
        Exit codes: 0 success; 64 bad command line; 65 not a decodable image; \
        69 network, HTTP status or size limit; 73 output not writable; 70 other failure.
        """,
        version: CurlDataLoader.version
    )

    @Argument(help: "The image's http or https URL.", transform: AwiCommand.parseURL)
    var url: URL

    @Option(name: [.short, .long], help: ArgumentHelp("Where to write: .png, .jpg or .jpeg.", valueName: "file"))
    var output = "out.png"

    @Option(help: ArgumentHelp("Decode a thumbnail that fits WxH (fast for JPEG).", valueName: "WxH"), transform: PixelSize.parse)
    var thumbnail: PixelSize?

    @Option(help: ArgumentHelp("Resize to WxH after decoding.", valueName: "WxH"), transform: PixelSize.parse)
    var resize: PixelSize?

    @Option(help: "How --resize treats the aspect ratio.")
    var fit: FitMode = .fit

    @Option(help: ArgumentHelp("Gaussian blur radius in pixels, above 0 and at most 250.", valueName: "radius"))
    var blur: Double?

    @Option(help: ArgumentHelp("Rotate by any angle from -360 to 360, in degrees.", valueName: "degrees"))
    var rotate: Double?

    @Flag(help: "Convert to gray.")
    var grayscale = false

    @Option(help: ArgumentHelp("JPEG quality, 0 to 1.", valueName: "q"))
    var quality = 0.85

    @Flag(help: "Print progressive previews as they arrive.")
    var progressive = false

    @Option(help: ArgumentHelp("Disk cache directory (default $XDG_CACHE_HOME/AsyncWebImage/awi).", valueName: "dir"))
    var cacheDir: String?

    @Flag(help: "Neither read nor write the caches.")
    var noCache = false

    @Flag(help: "Print what happened as one JSON object on standard output (source, timings, sizes).")
    var json = false

    @Option(
        name: [.customShort("H"), .customLong("header")],
        help: ArgumentHelp("Send a header field 'Name: value' (repeatable; a repeated name sends each value).", valueName: "field")
    )
    var headers: [String] = []

    /// The output format, from the output file's extension.
    var outputFormat: ImageFormat {
        switch (output as NSString).pathExtension.lowercased() {
        case "jpg", "jpeg": .jpeg
        default: .png
        }
    }

    mutating func validate() throws {
        let pathExtension = (output as NSString).pathExtension.lowercased()
        guard ["png", "jpg", "jpeg"].contains(pathExtension) else {
            throw ValidationError("--output must end in .png, .jpg or .jpeg (got '\(output)')")
        }
        if let blur {
            guard blur.isFinite, blur > 0, blur <= 250 else {
                throw ValidationError("--blur must be above 0 and at most 250 (got \(blur))")
            }
        }
        if let rotate {
            // A full turn either way is the most a caller means: past it
            // (1e300) the angle is a typo or garbage, not something to take modulo 360.
            guard rotate.isFinite, abs(rotate) <= 360 else {
                throw ValidationError("--rotate must be a finite number of degrees from -360 to 360 (got \(rotate))")
            }
        }
        guard quality.isFinite, (0...1).contains(quality) else {
            throw ValidationError("--quality must be between 0 and 1 (got \(quality))")
        }
        if noCache, cacheDir != nil {
            throw ValidationError("--no-cache and --cache-dir cannot be used together")
        }
        do {
            _ = try Self.headerFields(headers)
        } catch {
            throw ValidationError("--header: \(error)")
        }
    }

    /// The `--header` fields, in order. Each line is checked by the
    /// library's rule (``DataRequest/setValue(_:forHTTPHeaderField:)``): a
    /// name that is not a token, or a value with a line break or another
    /// control character, is refused, never sent.
    static func headerFields(_ lines: [String]) throws(ImageError) -> HTTPFields {
        var fields = HTTPFields()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else {
                throw .requestRejected("expected 'Name: value', got no ':'")
            }
            var scratch = DataRequest(url: URL(fileURLWithPath: "/"))
            try scratch.setValue(String(line[line.index(after: colon)...]), forHTTPHeaderField: String(line[..<colon]))
            fields.append(contentsOf: scratch.headers)
        }
        return fields
    }

    func run() async throws {
        do {
            let report = try await load()
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(report), as: UTF8.self))
            } else {
                print(report.summary)
            }
        } catch let failure as AwiFailure {
            FileHandle.standardError.write(Data("awi: \(failure.message)\n".utf8))
            throw ExitCode(failure.exitCode)
        }
    }

    /// Loads, encodes and writes the image; every failure becomes an ``AwiFailure``.
    private func load() async throws(AwiFailure) -> AwiReport {
        var transformers: [any ImageTransformer] = []
        if let resize { transformers.append(ImageTransformers.Resize(size: resize, mode: fit.mode)) }
        if let rotate { transformers.append(ImageTransformers.Rotate(degrees: rotate)) }
        if let blur { transformers.append(ImageTransformers.Blur(radius: blur)) }
        if grayscale { transformers.append(ImageTransformers.Grayscale()) }

        let disk = cacheDir.map { DiskStore(directory: URL(fileURLWithPath: $0)) } ?? DiskStore(name: "awi")
        var configuration = ImageLoader.Configuration(cache: ImageCache(memory: MemoryCache(), disk: disk))
        configuration.appliesOrientation = true
        configuration.coders = .allFormats
        let loader = ImageLoader(configuration: configuration)

        var loadOptions: ImageOptions = [.waitStoreCache]
        if progressive { loadOptions.insert(.progressiveLoad) }
        var context = ImageContext(thumbnail: thumbnail.map { ThumbnailOptions(size: $0) })
        if !headers.isEmpty {
            // Checked in validate(): this cannot throw here.
            context.requestModifier = RequestModifier.headers((try? Self.headerFields(headers)) ?? [:])
        }
        if !transformers.isEmpty { context.transformer = transformers.count == 1 ? transformers[0] : ImageTransformers.Pipeline(transformers) }
        if noCache {
            context.queryCacheType = ImageCacheType.none
            context.storeCacheType = ImageCacheType.none
            context.originalStoreCacheType = ImageCacheType.none
        }

        let bar = ProgressBar()
        let clock = ContinuousClock()
        let started = clock.now
        var previews = 0
        var receivedBytes: Int64 = 0
        var final: ImageResponse?
        do {
            for try await event in loader.events(url, options: loadOptions, context: context) {
                switch event {
                case .progress(let received, let expected):
                    receivedBytes = received
                    bar.show(received: received, expected: expected)
                case .preview(let image):
                    previews += 1
                    bar.clear()
                    if !json {
                        FileHandle.standardError.write(Data("preview \(previews): \(image.width)×\(image.height) after \(clock.now - started)\n".utf8))
                    }
                case .finished(let response): final = response
                }
            }
        } catch {
            bar.clear()
            throw AwiFailure(loading: error)
        }
        bar.clear()
        let loaded = clock.now
        guard let response = final else {
            throw AwiFailure(message: "the loader returned no image", exitCode: AwiFailure.software)
        }
        let image = response.image
        let data: Data
        do {
            data = try ImageCoderRegistry.allFormats.encode(image, as: outputFormat, quality: quality)
        } catch {
            throw AwiFailure(message: "encoding failed: \(error)", exitCode: AwiFailure.software)
        }
        let encoded = clock.now
        do {
            try data.write(to: URL(fileURLWithPath: output))
        } catch {
            throw AwiFailure(message: "cannot write \(output): \(error.localizedDescription)", exitCode: AwiFailure.cannotCreate)
        }
        let written = clock.now
        return AwiReport(
            url: url.absoluteString,
            source: AwiReport.source(of: response.source),
            width: image.width,
            height: image.height,
            pixelFormat: "\(image.pixelFormat)",
            downloadedBytes: receivedBytes,
            previews: previews,
            output: AwiReport.Output(path: output, format: outputFormat == .jpeg ? "jpeg" : "png", bytes: data.count),
            milliseconds: AwiReport.Timings(
                load: AwiReport.milliseconds(loaded - started),
                encode: AwiReport.milliseconds(encoded - loaded),
                write: AwiReport.milliseconds(written - encoded),
                total: AwiReport.milliseconds(written - started)
            )
        )
    }

    /// Accepts absolute `http` and `https` URLs with a host.
    static func parseURL(_ text: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased() else {
            throw ValidationError("'\(text)' is not a URL")
        }
        guard scheme == "http" || scheme == "https" else {
            throw ValidationError("only http and https URLs can be loaded (got '\(scheme)')")
        }
        guard let host = url.host, !host.isEmpty else { throw ValidationError("'\(text)' has no host") }
        return url
    }
}
