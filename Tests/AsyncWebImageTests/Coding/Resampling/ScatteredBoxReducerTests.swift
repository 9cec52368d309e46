import Testing
@testable import AsyncWebImage

@Suite("ScatteredBoxReducer", .timeLimit(.minutes(1)))
struct ScatteredBoxReducerTests {
    @Test("pixels fed in Adam7 pass order give exactly BoxReducer's result", arguments: [PixelFormat.gray8, .grayAlpha8, .rgb8, .rgba8])
    func matchesBoxReducer(format: PixelFormat) {
        // Given a 23×13 image of varied bytes and a factor of 3
        let (width, height, factor) = (23, 13, 3)
        let rowBytes = width * format.channelCount
        let pixels = (0..<(rowBytes * height)).map { UInt8(truncatingIfNeeded: $0 &* 73 &+ $0 >> 3) }
        var sequential = BoxReducer(sourceWidth: width, sourceHeight: height, factor: factor, pixelFormat: format)
        var scattered = ScatteredBoxReducer(sourceWidth: width, sourceHeight: height, factor: factor, pixelFormat: format)
        let count = sequential.size.width * sequential.size.height * format.channelCount
        var expected = [UInt8](repeating: 0, count: count)
        var actual = [UInt8](repeating: 0, count: count)
        pixels.withUnsafeBufferPointer { source in
            // When one reducer gets rows in order and the other pass by pass
            expected.withUnsafeMutableBytes { out in
                for y in 0..<height { sequential.add(row: source.baseAddress! + y * rowBytes, output: out) }
            }
            let rowsOfPass = [(0, 8), (0, 8), (4, 8), (0, 4), (2, 4), (0, 2), (1, 2)]
            for (pass, (rowStart, rowStep)) in rowsOfPass.enumerated() {
                let (start, step) = PNGRowDecoder.adam7Columns[pass]
                for y in stride(from: rowStart, to: height, by: rowStep) {
                    scattered.add(row: source.baseAddress! + y * rowBytes, y: y, start: start, step: step)
                }
            }
        }
        actual.withUnsafeMutableBytes { scattered.write(into: $0) }
        // Then both are the same
        #expect(scattered.size == sequential.size)
        #expect(actual == expected)
    }

    @Test("ignores rows and columns outside the image")
    func outOfRange() {
        var reducer = ScatteredBoxReducer(sourceWidth: 4, sourceHeight: 2, factor: 2, pixelFormat: .gray8)
        let row: [UInt8] = [100, 100, 100, 100]
        row.withUnsafeBufferPointer { row in
            reducer.add(row: row.baseAddress!, y: 0, start: 0, step: 1)
            reducer.add(row: row.baseAddress!, y: 1, start: 0, step: 1)
            reducer.add(row: row.baseAddress!, y: 2, start: 0, step: 1)
            reducer.add(row: row.baseAddress!, y: -1, start: 0, step: 1)
            reducer.add(row: row.baseAddress!, y: 0, start: 9, step: 1)
        }
        var out = [UInt8](repeating: 0, count: 2)
        out.withUnsafeMutableBytes { reducer.write(into: $0) }
        #expect(out == [100, 100])
    }
}
