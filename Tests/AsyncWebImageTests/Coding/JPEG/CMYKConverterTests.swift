import Testing
@testable import AsyncWebImage

@Suite("CMYKConverter", .timeLimit(.minutes(1)))
struct CMYKConverterTests {
    @Test("the shift-based division rounds exactly like round(x / 255) for every product of two bytes")
    func division() {
        var mismatches = 0
        for x in 0...(255 * 255) {
            let expected = UInt8((Double(x) / 255).rounded())
            if CMYKConverter.divideBy255Rounded(UInt32(x)) != expected { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    @Test("inverted CMYK becomes RGB as R = C·K/255")
    func convention() {
        // Adobe-inverted samples: 255 means no ink.
        let cmyk: [UInt8] = [
            255, 255, 255, 255, // no ink: white
            255, 0, 0, 255, // full magenta and yellow: red
            255, 255, 255, 0, // full black: black
            128, 255, 64, 200, // mixed
        ]
        var rgb = [UInt8](repeating: 7, count: 12)
        cmyk.withUnsafeBytes { source in
            rgb.withUnsafeMutableBytes { CMYKConverter.convert(source, to: $0, count: 4) }
        }
        #expect(rgb == [255, 255, 255, 255, 0, 0, 0, 0, 0, 100, 200, 50])
    }
}
