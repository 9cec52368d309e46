@testable import AsyncWebImage

/// Images built in memory for transformer tests.
enum TransformImages {
    /// An image whose every pixel says where it is: channel values are
    /// `x`, `y`, `x + 2y` (mod 256) and 255 for alpha, cut to `format`'s
    /// channel count, so any misplaced pixel shows. Rows are padded by
    /// `padding` bytes to exercise `bytesPerRow`.
    static func numbered(width: Int, height: Int, format: PixelFormat = .rgba8, padding: Int = 0) -> Image {
        let channels = format.channelCount
        let stride = width * channels + padding
        var pixels = [UInt8](repeating: 0xEE, count: stride * height)
        for y in 0..<height {
            for x in 0..<width {
                let values: [UInt8] = switch format {
                case .rgba8: [UInt8(x & 255), UInt8(y & 255), UInt8((x + 2 * y) & 255), 255]
                case .rgb8: [UInt8(x & 255), UInt8(y & 255), UInt8((x + 2 * y) & 255)]
                case .grayAlpha8: [UInt8((x + 16 * y) & 255), UInt8((y * 7 + x) & 255)]
                case .gray8: [UInt8((x + 16 * y) & 255)]
                }
                for c in 0..<channels { pixels[y * stride + x * channels + c] = values[c] }
            }
        }
        return try! Image(width: width, height: height, pixelFormat: format, bytesPerRow: stride, pixels: pixels)
    }

    /// A `width`×`height` image of one colour.
    static func solid(width: Int, height: Int, format: PixelFormat, _ value: [UInt8]) -> Image {
        precondition(value.count == format.channelCount)
        let pixels = (0..<(width * height)).flatMap { _ in value }
        return try! Image(width: width, height: height, pixelFormat: format, pixels: pixels)
    }

    /// An image whose pixel (x, y) is `color(x, y)`.
    static func make(width: Int, height: Int, format: PixelFormat, orientation: Image.Orientation = .up, _ color: (Int, Int) -> [UInt8]) -> Image {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * format.channelCount)
        for y in 0..<height {
            for x in 0..<width { pixels += color(x, y) }
        }
        return try! Image(width: width, height: height, pixelFormat: format, pixels: pixels, orientation: orientation)
    }

    /// The ``ImageError/transformFailed(key:reason:)`` key thrown by `body`, or `nil`.
    static func failureKey(_ body: () throws -> Image) -> String? {
        do {
            _ = try body()
            return nil
        } catch let ImageError.transformFailed(key, _) {
            return key
        } catch {
            return nil
        }
    }
}
