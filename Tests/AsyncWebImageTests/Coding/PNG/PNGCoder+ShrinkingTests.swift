import Foundation
import Testing
@testable import AsyncWebImage

@Suite("PNGCoder shrink-on-load", .timeLimit(.minutes(2)))
struct PNGCoderShrinkingTests {
    let coder = PNGCoder()

    @Test("shrink-on-load matches a full decode and resample", arguments: ["progressive-plain", "rgba16-smooth", "gray8-trns", "palette8"])
    func shrinkOnLoad(name: String) throws {
        // Given a non-interlaced PNG, decoded in full and resampled by the resampler
        let data = try PNGFixture.data(name)
        let full = try coder.decode(data, options: .init())
        for box in [PixelSize(width: full.width / 4, height: full.height / 4), PixelSize(width: full.width * 2 / 5, height: 1000)] {
            let options = ImageDecodingOptions(thumbnailPixelSize: box)
            let target = try #require(options.targetSize(forStored: full.size, orientation: .up))
            let reference = ImageResampler.resample(full, to: target)
            // When it is decoded as a thumbnail (row by row, box-averaged while decoding)
            let thumbnail = try coder.decode(data, options: options)
            // Then size and format are the same and the mean of every channel agrees
            #expect(thumbnail.size == target && thumbnail.pixelFormat == full.pixelFormat)
            let channels = full.pixelFormat.channelCount
            for channel in 0..<channels {
                func mean(_ image: Image) -> Double {
                    let values = stride(from: channel, to: image.width * image.height * channels, by: channels).map { Double(image.pixels[$0]) }
                    return values.reduce(0, +) / Double(values.count)
                }
                // Within 4 levels: a box then Lanczos-3 (both in linear light)
                // is not quite Lanczos-3 alone on high-contrast detail, the
                // overshoot being clipped twice; ImageMagick's own two stages
                // (`-colorspace RGB -filter box -resize 80x60! -filter Lanczos
                // -resize 40x30! -colorspace sRGB`) differ from its one
                // (`-filter Lanczos -resize 40x30!`) by 1.8 levels in the blue
                // mean of progressive-plain, ours by 3.4.
                #expect(abs(mean(thumbnail) - mean(reference)) < 4, "\(name) \(target) channel \(channel)")
            }
        }
        // With the .area speed option an exact whole factor is a plain area
        // average: equal to the resampler's within rounding
        if full.width % 4 == 0 && full.height % 4 == 0 {
            var areaOptions = ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: full.width / 4, height: full.height / 4))
            areaOptions.thumbnailFilter = .area
            let quarter = try coder.decode(data, options: areaOptions)
            let reference = ImageResampler.resample(full, to: quarter.size, filter: .area)
            #expect(try #require(quarter.maximumChannelDifference(from: reference)) <= 1)
        }
    }

    @Test("an interlaced thumbnail, reduced pass row by pass row, equals its plain twin's", arguments: [
        ("progressive-interlaced", "progressive-plain"), ("rgba16-interlaced", "rgba16"),
        ("palette4-trns-interlaced", "palette4-trns"), ("gray1-interlaced", "gray1"),
    ])
    func interlacedThumbnail(interlaced: String, plain: String) throws {
        for box in [PixelSize(width: 8, height: 8), PixelSize(width: 15, height: 100), PixelSize(width: 3, height: 3)] {
            // Given the same pixels stored interlaced and not
            let options = ImageDecodingOptions(thumbnailPixelSize: box)
            let a = try coder.decode(PNGFixture.data(interlaced), options: options)
            let b = try coder.decode(PNGFixture.data(plain), options: options)
            // Then the thumbnails are identical, pixel for pixel
            #expect(a.size == b.size)
            #expect(a.hasSamePixels(as: b), "\(interlaced) \(box)")
        }
        // And a truncated interlaced file is still a typed error
        let data = try PNGFixture.data(interlaced)
        #expect(throws: ImageError.self) {
            try coder.decode(data.prefix(data.count / 2), options: .init(thumbnailPixelSize: PixelSize(width: 8, height: 8)))
        }
    }

    @Test("picks a whole factor leaving three times the target for the filter; with .area, for images at least twice the target")
    func factor() throws {
        func plan(_ name: String) throws -> PNGDecodePlan {
            try PNGFixture.data(name).withUnsafeBytes { bytes in
                let context = try SpngContext(decoding: bytes)
                return try PNGDecodePlan(ihdr: context.header(), hasTransparencyChunk: context.hasTransparencyChunk())
            }
        }
        let plain = try plan("progressive-plain") // 160×120
        // The .area speed option: the largest whole factor
        #expect(PNGCoder.shrinkFactor(plan: plain, target: PixelSize(width: 40, height: 30), filter: .area) == 4)
        #expect(PNGCoder.shrinkFactor(plan: plain, target: PixelSize(width: 50, height: 20), filter: .area) == 3)
        #expect(PNGCoder.shrinkFactor(plan: plain, target: PixelSize(width: 100, height: 75), filter: .area) == nil)
        #expect(PNGCoder.shrinkFactor(plan: plain, target: PixelSize(width: 1, height: 1), filter: .area) == 120)
        #expect(PNGCoder.shrinkFactor(plan: try plan("progressive-interlaced"), target: PixelSize(width: 40, height: 30), filter: .area) == 4)
        // The default (Lanczos-3): the box stops at three times the target or more
        #expect(PNGCoder.shrinkFactor(plan: plain, target: PixelSize(width: 40, height: 30)) == nil)
        #expect(PNGCoder.shrinkFactor(plan: plain, target: PixelSize(width: 20, height: 15)) == 2)
        #expect(PNGCoder.shrinkFactor(plan: plain, target: PixelSize(width: 50, height: 20)) == nil)
        #expect(PNGCoder.shrinkFactor(plan: plain, target: PixelSize(width: 100, height: 75)) == nil)
        #expect(PNGCoder.shrinkFactor(plan: plain, target: PixelSize(width: 1, height: 1)) == 40)
        #expect(PNGCoder.shrinkFactor(plan: try plan("progressive-interlaced"), target: PixelSize(width: 20, height: 15)) == 2)
    }
}
