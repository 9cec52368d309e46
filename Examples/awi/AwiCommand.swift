// awi: fetch one image by URL with AsyncWebImage and write it as PNG or JPEG.
import AsyncWebImage
import Foundation

/// Command-line options, parsed by hand (the example needs no dependency).
struct Options {
    var url: URL?
    var output = "out.png"
    var thumbnail: PixelSize?
    var resize: PixelSize?
    var mode = ResizeTransformer.Mode.fit
    var blur: Double?
    var grayscale = false
    var rotate: Double?
    var quality = 0.85
    var progressive = false
    var cacheDirectory: String?
    var noCache = false

    static let usage = """
    usage: awi URL [options]
      -o, --output FILE       write here (.png or .jpg; default out.png)
      --thumbnail WxH         decode a thumbnail that fits WxH (fast for JPEG)
      --resize WxH            resize after decoding
      --fit fit|fill|stretch  how --resize treats the aspect ratio (default fit)
      --blur RADIUS           gaussian blur
      --rotate DEGREES        rotate (any angle)
      --grayscale             convert to gray
      --quality Q             JPEG quality 0...1 (default 0.85)
      --progressive           show progressive previews as they arrive
      --cache-dir DIR         disk cache directory (default $XDG_CACHE_HOME/AsyncWebImage/awi)
      --no-cache              neither read nor write the caches
    """

    static func parseSize(_ text: String) -> PixelSize? {
        let parts = text.lowercased().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, parts[0] > 0, parts[1] > 0 else { return nil }
        return PixelSize(width: parts[0], height: parts[1])
    }

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var iterator = arguments.makeIterator()
        func value(_ flag: String) throws -> String {
            guard let next = iterator.next() else { throw UsageError("\(flag) needs a value") }
            return next
        }
        while let argument = iterator.next() {
            switch argument {
            case "-h", "--help": throw UsageError(nil)
            case "-o", "--output": options.output = try value(argument)
            case "--thumbnail":
                guard let size = parseSize(try value(argument)) else { throw UsageError("bad --thumbnail") }
                options.thumbnail = size
            case "--resize":
                guard let size = parseSize(try value(argument)) else { throw UsageError("bad --resize") }
                options.resize = size
            case "--fit":
                switch try value(argument) {
                case "fit": options.mode = .fit
                case "fill": options.mode = .fill
                case "stretch": options.mode = .stretch
                default: throw UsageError("--fit takes fit, fill or stretch")
                }
            case "--blur": options.blur = Double(try value(argument))
            case "--rotate": options.rotate = Double(try value(argument))
            case "--grayscale": options.grayscale = true
            case "--quality": options.quality = Double(try value(argument)) ?? options.quality
            case "--progressive": options.progressive = true
            case "--cache-dir": options.cacheDirectory = try value(argument)
            case "--no-cache": options.noCache = true
            default:
                guard options.url == nil, let url = URL(string: argument), url.scheme != nil else {
                    throw UsageError("unexpected argument \(argument)")
                }
                options.url = url
            }
        }
        guard options.url != nil else { throw UsageError("a URL is required") }
        return options
    }
}

struct UsageError: Error {
    let message: String?
    init(_ message: String?) { self.message = message }
}

/// A one-line progress bar on a terminal, nothing otherwise.
struct ProgressBar {
    let enabled = isatty(STDERR_FILENO) == 1

    func show(received: Int64, expected: Int64?) {
        guard enabled else { return }
        if let expected, expected > 0 {
            let fraction = min(1, Double(received) / Double(expected))
            let filled = Int(fraction * 30)
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: 30 - filled)
            FileHandle.standardError.write(Data("\r[\(bar)] \(Int(fraction * 100))% \(received / 1024) KiB".utf8))
        } else {
            FileHandle.standardError.write(Data("\r\(received / 1024) KiB".utf8))
        }
    }

    func clear() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}

func run() async -> Int32 {
    let options: Options
    do {
        options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
    } catch let error as UsageError {
        if let message = error.message { FileHandle.standardError.write(Data("awi: \(message)\n".utf8)) }
        print(Options.usage)
        return error.message == nil ? 0 : 2
    } catch {
        return 2
    }
    guard let url = options.url else { return 2 }

    var transformers: [any ImageTransformer] = []
    if let size = options.resize { transformers.append(ResizeTransformer(size: size, mode: options.mode)) }
    if let degrees = options.rotate { transformers.append(RotateTransformer(degrees: degrees)) }
    if let radius = options.blur { transformers.append(BlurTransformer(radius: radius)) }
    if options.grayscale { transformers.append(GrayscaleTransformer()) }

    let disk = options.cacheDirectory.map { DiskStore(directory: URL(fileURLWithPath: $0)) } ?? DiskStore(name: "awi")
    var configuration = ImageLoader.Configuration(cache: ImageCache(memory: MemoryCache(), disk: disk))
    configuration.appliesOrientation = true
    let loader = ImageLoader(configuration: configuration)

    var loadOptions: ImageOptions = [.waitStoreCache]
    if options.progressive { loadOptions.insert(.progressiveLoad) }
    var context = ImageContext(thumbnailPixelSize: options.thumbnail)
    if !transformers.isEmpty { context.transformer = transformers.count == 1 ? transformers[0] : PipelineTransformer(transformers) }
    if options.noCache {
        context.queryCacheType = ImageCacheType.none
        context.storeCacheType = ImageCacheType.none
        context.originalStoreCacheType = ImageCacheType.none
    }

    let bar = ProgressBar()
    let started = ContinuousClock.now
    do {
        var previews = 0
        var final: ImageResponse?
        for try await event in loader.events(url, options: loadOptions, context: context) {
            switch event {
            case .progress(let received, let expected): bar.show(received: received, expected: expected)
            case .preview(let image):
                previews += 1
                bar.clear()
                FileHandle.standardError.write(Data("preview \(previews): \(image.width)×\(image.height) after \(ContinuousClock.now - started)\n".utf8))
            case .finished(let response): final = response
            }
        }
        bar.clear()
        guard let response = final, let image = response.image else { return 1 }
        let format: ImageFormat = options.output.lowercased().hasSuffix(".jpg") || options.output.lowercased().hasSuffix(".jpeg") ? .jpeg : .png
        let data = try ImageCoderRegistry.builtIn.encode(image, as: format, quality: options.quality)
        try data.write(to: URL(fileURLWithPath: options.output))
        let source = switch response.cacheType {
        case .none: "network"
        case .memory: "memory"
        case .disk: "disk cache"
        case .all: "cache"
        }
        print("\(url.absoluteString): \(image.width)×\(image.height) \(image.pixelFormat) from \(source) in \(ContinuousClock.now - started) → \(options.output) (\(data.count) bytes)")
        return 0
    } catch {
        bar.clear()
        FileHandle.standardError.write(Data("awi: \(error)\n".utf8))
        return 1
    }
}

exit(await run())
