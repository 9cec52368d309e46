import Foundation
import Testing
@testable import AsyncWebImage
@testable import AsyncWebImageGIF

/// GIF thumbnails resampled row by row, without the full-size canvas,
/// against the full canvas resampled by the same filter
/// (`Fixtures/make-webp-gif-fixtures.sh`), and against ImageMagick's resize.
@Suite("GIFThumbnail: resampled while decoding", .timeLimit(.minutes(1)))
struct GIFThumbnailTests {
    let coder = GIFCoder()

    static let fixtures = [
        "still", "interlaced", "transparent", "offset-animated", "offset-interlaced", "clipped", "clipped-interlaced", "large",
    ]

    static let options: [(String, ImageDecodingOptions)] = [
        ("fit 20×20", ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 20, height: 20))),
        ("fill 23×23", {
            var options = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 23, height: 23))
            options.coversThumbnailPixelSize = true
            return options
        }()),
        ("stretched 17×9", ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 17, height: 9), preserveAspectRatio: false)),
        ("one side kept", ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 10_000, height: 7), preserveAspectRatio: false)),
        ("scale-down", ImageDecodingOptions(scaleDownLargeImages: true, scaleDownLimitBytes: 2000)),
    ]

    @Test("the full decodes of the new fixtures equal ImageMagick's first frame",
          arguments: [("offset-interlaced", PixelFormat.rgba8), ("clipped", .rgba8), ("clipped-interlaced", .rgba8), ("large", .rgb8)])
    func fullDecode(name: String, format: PixelFormat) throws {
        let image = try coder.decode(try fixture("gif", name + ".gif"), options: .init())
        #expect(image.pixelFormat == format)
        #expect(try PAMReference("gif", name).maximumDifference(from: image) == 0)
    }

    @Test("a thumbnail equals the full canvas resampled by the same filter", arguments: fixtures)
    func equalsFullDecodeResampled(name: String) throws {
        // Given a GIF and its full-size decode
        let data = try fixture("gif", name + ".gif")
        let full = try coder.decode(data, options: .init())

        for (label, options) in Self.options {
            // When it is decoded as a thumbnail
            let thumbnail = try coder.decode(data, options: options)

            // Then it is the full canvas resampled to the size the options ask for, byte for byte
            let target = try #require(options.targetSize(forStored: full.size, orientation: .up), "\(label)")
            let reference = ImageResampler.resample(full, to: target)
            #expect(thumbnail.size == target, "\(label)")
            #expect(thumbnail.pixelFormat == full.pixelFormat, "\(label)")
            #expect(thumbnail.format == .gif, "\(label)")
            #expect(thumbnail.hasSamePixels(as: reference), "\(name) \(label)")
        }
    }

    @Test("an interlaced frame thumbnails to the same pixels as the same frame stored sequentially, clipped or not")
    func interlacedEqualsSequential() throws {
        let options = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 21, height: 21))
        let pairs = [("still", "interlaced"), ("clipped", "clipped-interlaced")]
        for (sequential, interlaced) in pairs {
            let a = try coder.decode(try fixture("gif", sequential + ".gif"), options: options)
            let b = try coder.decode(try fixture("gif", interlaced + ".gif"), options: options)
            #expect(a.size.width == 21 || a.size.height == 21)
            #expect(a.hasSamePixels(as: b), "\(sequential) vs \(interlaced)")
        }
    }

    @Test("a frame reaching past the screen: the thumbnail is of the screen, transparent where the frame is not")
    func clippedFrame() throws {
        // Given a 53×37 frame at (9, 6) on a 55×40 screen, thumbnailed to a quarter
        let image = try coder.decode(
            try fixture("gif", "clipped-interlaced.gif"),
            options: .init(thumbnailPixelSize: PixelSize(width: 11, height: 8), preserveAspectRatio: false)
        )

        // Then the left columns and top row (all outside the frame) are transparent, the centre is opaque
        #expect(image.size == PixelSize(width: 11, height: 8))
        #expect(image.pixel(x: 0, y: 4)?[3] == 0)
        #expect(image.pixel(x: 5, y: 0)?[3] == 0)
        #expect(image.pixel(x: 6, y: 4)?[3] == 255)
    }

    @Test("a 255×191 GIF to 64×48: with .area within 1 level of ImageMagick's -scale; with .linear close to its linear-light Lanczos -resize")
    func imageMagickReference() throws {
        // Given ImageMagick's `convert 'large.gif[0]' -scale 64x48!` (area averaging) and
        // `-colorspace RGB -filter Lanczos -resize 64x48! -colorspace sRGB` (Lanczos-3 in linear light)
        func difference(_ thumbnail: Image, from name: String) throws -> (worst: Int, mean: Double) {
            let ours = PAMReference.rgba(thumbnail)
            let reference = try PAMReference("gif", name)
            try #require(reference.rgba.count == ours.count)
            let differences = zip(ours, reference.rgba).map { abs(Int($0) - Int($1)) }
            return (differences.max() ?? 0, Double(differences.reduce(0, +)) / Double(differences.count))
        }
        var areaOptions = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 64, height: 64))
        areaOptions.thumbnailFilter = .area
        let area = try coder.decode(try fixture("gif", "large.gif"), options: areaOptions)
        var linearOptions = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 64, height: 64))
        linearOptions.thumbnailLight = .linear
        let lanczos = try coder.decode(try fixture("gif", "large.gif"), options: linearOptions)
        #expect(area.size == PixelSize(width: 64, height: 48) && lanczos.size == area.size)

        // Then the .area speed option is the same area average as -scale, to rounding
        let scale = try difference(area, from: "large-scale-64x48")
        #expect(scale.worst <= 1 && scale.mean < 0.25, "-scale: \(scale)")
        // And the linear-light option agrees with ImageMagick's Lanczos-3 in
        // linear light on average (measured 0.75 levels); at hard edges
        // ImageMagick's kernel overshoots where ours is clamped to its
        // inputs' range (anti-ringing), by up to 54 levels (measured)
        let resize = try difference(lanczos, from: "large-lanczos-linear-64x48")
        #expect(resize.worst <= 64 && resize.mean < 1, "linear Lanczos -resize: \(resize)")
    }

    @Test("a truncated GIF fails the thumbnail decode with a typed error, as the full decode does",
          arguments: ["large", "clipped-interlaced"])
    func truncated(name: String) throws {
        let data = try fixture("gif", name + ".gif")
        let options = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 16, height: 16))
        for end in stride(from: 0, to: data.count - 2, by: 7) {
            #expect("cut at \(end)") {
                _ = try coder.decode(data.prefix(end), options: options)
            } throws: { error in
                guard case .undecodable(.gif, _)? = error as? ImageError else { return false }
                return true
            }
        }
    }
}
