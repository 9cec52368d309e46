import Testing
@testable import AsyncWebImage

@Suite("JPEGScale", .timeLimit(.minutes(1)))
struct JPEGScaleTests {
    @Test("picks the smallest DCT scale that still covers the target")
    func scaleChoice() {
        let full = PixelSize(width: 640, height: 480)
        #expect(JPEGScale.smallestCovering(PixelSize(width: 100, height: 75), from: full) == JPEGScale(numerator: 1, denominator: 4))
        #expect(JPEGScale.smallestCovering(PixelSize(width: 80, height: 60), from: full) == JPEGScale(numerator: 1, denominator: 8))
        #expect(JPEGScale.smallestCovering(PixelSize(width: 81, height: 60), from: full) == JPEGScale(numerator: 1, denominator: 4))
        #expect(JPEGScale.smallestCovering(PixelSize(width: 400, height: 300), from: full) == JPEGScale(numerator: 5, denominator: 8))
        #expect(JPEGScale.smallestCovering(PixelSize(width: 639, height: 479), from: full) == .one)
        // Every factor offered shrinks, smallest first.
        #expect(JPEGScale.reducing.first == JPEGScale(numerator: 1, denominator: 8))
        #expect(JPEGScale.reducing.last == .one)
    }

    @Test("scaled sizes round up, as TJSCALED does")
    func rounding() {
        let eighth = JPEGScale(numerator: 1, denominator: 8)
        #expect(eighth.apply(to: PixelSize(width: 4000, height: 3000)) == PixelSize(width: 500, height: 375))
        #expect(eighth.apply(to: PixelSize(width: 1, height: 9)) == PixelSize(width: 1, height: 2))
        #expect(JPEGScale(numerator: 3, denominator: 8).apply(to: PixelSize(width: 97, height: 65)) == PixelSize(width: 37, height: 25))
        #expect(JPEGScale.one.apply(to: PixelSize(width: 97, height: 65)) == PixelSize(width: 97, height: 65))
        #expect("\(eighth)" == "1/8")
    }
}
