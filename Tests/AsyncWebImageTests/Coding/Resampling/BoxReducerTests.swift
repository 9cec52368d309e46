import Testing
@testable import AsyncWebImage

@Suite("BoxReducer", .timeLimit(.minutes(1)))
struct BoxReducerTests {
    /// Streams `pixels` (tightly packed rows) through a reducer and returns its output.
    private func reduce(_ pixels: [UInt8], width: Int, height: Int, factor: Int, format: PixelFormat) -> (PixelSize, [UInt8]) {
        var reducer = BoxReducer(sourceWidth: width, sourceHeight: height, factor: factor, pixelFormat: format)
        var output = [UInt8](repeating: 0xEE, count: reducer.size.width * reducer.size.height * format.channelCount)
        let rowBytes = width * format.channelCount
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBytes { out in
                for y in 0..<height { reducer.add(row: source.baseAddress! + y * rowBytes, output: out) }
            }
        }
        return (reducer.size, output)
    }

    @Test("averages whole boxes and the partial boxes at the edges, rounding to nearest")
    func averages() {
        // Given a 5×3 grey image whose value is 10x + 100y, shrunk by 2
        let pixels = (0..<3).flatMap { y in (0..<5).map { x in UInt8(10 * x + 100 * y) } }
        let (size, output) = reduce(pixels, width: 5, height: 3, factor: 2, format: .gray8)
        // Then it is 3×2: full boxes, a 1-wide right column, a 1-high bottom row
        #expect(size == PixelSize(width: 3, height: 2))
        #expect(output == [55, 75, 90, 205, 225, 240])
    }

    @Test("weights colour by alpha, so transparent pixels do not bleed")
    func alpha() {
        // Given transparent red beside opaque blue, and a fully transparent pair
        let pixels: [UInt8] = [255, 0, 0, 0, 0, 0, 255, 255, 9, 9, 9, 0, 7, 7, 7, 0]
        let (size, output) = reduce(pixels, width: 4, height: 1, factor: 2, format: .rgba8)
        // Then the first is pure blue at half opacity, the second transparent black
        #expect(size == PixelSize(width: 2, height: 1))
        #expect(output == [0, 0, 255, 128, 0, 0, 0, 0])
        // Grey + alpha: (200, 255) and (0, 85) average to (150, 170)
        let (_, grey) = reduce([200, 255, 0, 85], width: 2, height: 1, factor: 2, format: .grayAlpha8)
        #expect(grey == [150, 170])
    }

    @Test("noise in every layout, odd widths and factors: each output pixel is its box's rounded (alpha-weighted) mean", arguments: [
        PixelFormat.gray8, .grayAlpha8, .rgb8, .rgba8,
    ])
    func noise(format: PixelFormat) {
        let channels = format.channelCount
        var state: UInt32 = 0x9E37_79B9
        // Boxes of 1 to 7 pixels, partial at the right and bottom edges; RGBA goes two pixels at a time, so odd box widths matter.
        for (width, height, factor) in [(1, 1, 1), (7, 3, 2), (31, 9, 3), (29, 14, 7), (64, 5, 5), (13, 13, 13), (100, 6, 6)] {
            let pixels = (0..<(width * height * channels)).map { _ -> UInt8 in
                state = state &* 1_664_525 &+ 1_013_904_223
                return UInt8(truncatingIfNeeded: state >> 24)
            }
            let (size, output) = reduce(pixels, width: width, height: height, factor: factor, format: format)
            // The rule written out: sums over the box (colour × alpha when there is alpha), rounded to nearest.
            var expected: [UInt8] = []
            for oy in 0..<size.height {
                for ox in 0..<size.width {
                    var sums = [Int](repeating: 0, count: channels)
                    var count = 0
                    for y in (oy * factor)..<min(height, (oy + 1) * factor) {
                        for x in (ox * factor)..<min(width, (ox + 1) * factor) {
                            let base = (y * width + x) * channels
                            let alpha = format.hasAlpha ? Int(pixels[base + channels - 1]) : 1
                            for c in 0..<channels {
                                sums[c] += format.hasAlpha && c == channels - 1 ? alpha : Int(pixels[base + c]) * alpha
                            }
                            count += 1
                        }
                    }
                    for c in 0..<channels {
                        if format.hasAlpha && c < channels - 1 {
                            let alphaSum = sums[channels - 1]
                            expected.append(alphaSum == 0 ? 0 : UInt8((sums[c] + alphaSum / 2) / alphaSum))
                        } else {
                            expected.append(UInt8((sums[c] + count / 2) / count))
                        }
                    }
                }
            }
            #expect(output == expected, "\(format) \(width)×\(height) by \(factor)")
        }
    }

    @Test("the largest factor cannot overflow its sums")
    func largestFactor() {
        // Given 256×256 opaque white RGBA pixels (the worst case for the sums)
        let pixels = [UInt8](repeating: 255, count: 256 * 256 * 4)
        let (size, output) = reduce(pixels, width: 256, height: 256, factor: BoxReducer.maximumFactor, format: .rgba8)
        #expect(size == PixelSize(width: 1, height: 1))
        #expect(output == [255, 255, 255, 255])
    }
}
