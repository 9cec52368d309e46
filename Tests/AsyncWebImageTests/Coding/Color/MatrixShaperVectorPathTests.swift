import Foundation
import Testing
@testable import AsyncWebImage

/// The AVX-512 path of ``MatrixShaperKernel`` against its scalar loop, byte
/// for byte, on a decoded photo (the JPEG fixture `large.jpg`): both read
/// the same tables, so they must write the same bytes, on every row length
/// (the vector path takes 64 pixels at a time and leaves the rest of a row
/// to the scalar loop), RGB and RGBA, in place and into another buffer.
@Suite("Matrix/TRC fast path, vector path", .timeLimit(.minutes(2)))
struct MatrixShaperVectorPathTests {
    /// The photo's pixels as RGB (3 bytes) or RGBA (4, alpha a pattern of
    /// the position, so that a swapped or shifted alpha shows), row by row.
    static func photo(bytesPerPixel: Int) throws -> (pixels: [UInt8], width: Int, height: Int) {
        let image = try JPEGCoder().decode(fixture("jpeg", "large.jpg"), options: .init())
        let source = image.pixels, step = source.count / (image.width * image.height)
        try #require(step >= 3)
        var pixels = [UInt8]()
        pixels.reserveCapacity(image.width * image.height * bytesPerPixel)
        for index in 0..<(image.width * image.height) {
            pixels += source[(index * step)..<(index * step + 3)]
            if bytesPerPixel == 4 { pixels.append(UInt8(truncatingIfNeeded: index &* 37)) }
        }
        return (pixels, image.width, image.height)
    }

    /// The index of the first byte where `a` and `b` differ (or where one ends), or `nil`.
    static func firstDifference(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Int? {
        if let index = zip(a, b).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset { return index }
        return a.count == b.count ? nil : min(a.count, b.count)
    }

    static func kernel(_ name: String) throws -> MatrixShaperKernel {
        let transform = try MatrixShaperKernelTests.transform(MatrixShaperKernelTests.profile(name), layout: .rgb)
        return try #require(transform.fastPath)
    }

    @Test("the vector path runs wherever the CPU has AVX-512 VBMI")
    func availability() throws {
        for name in MatrixShaperKernelTests.names {
            #expect(try Self.kernel(name).hasVectorPath == MatrixShaperKernel.cpuRunsVectorPath, "\(name)")
        }
        // Constant column tables (a zero matrix entry: a primary sRGB
        // shares) and looked-up ones are both exercised below: Adobe RGB
        // shares red and blue (four zero entries), Display P3 blue (two),
        // ProPhoto none.
        if MatrixShaperKernel.cpuRunsVectorPath {
            let lookups = try ["Adobe RGB (icc-profiles-free)", "Display P3 v4 (fixture)", "ProPhoto (D50, gamma 1.8)"].map {
                try Self.kernel($0).vectorLookupTables
            }
            #expect(lookups == [5, 7, 9])
        }
    }

    @Test(
        "every row length 1...200 and the full width give the scalar loop's bytes, in place and not",
        arguments: ["Adobe RGB (icc-profiles-free)", "Display P3 v4 (fixture)", "ProPhoto (D50, gamma 1.8)"], [3, 4]
    )
    func matchesScalar(name: String, bytesPerPixel: Int) throws {
        let kernel = try Self.kernel(name)
        let photo = try Self.photo(bytesPerPixel: bytesPerPixel)
        // Rows of each width (every remainder mod 64 several times over),
        // cut from the photo's rows at an offset that moves with the width;
        // 7 bytes of padding after each row must stay untouched.
        let widths = Array(1...200) + [photo.width]
        var changed = 0, converted = 0
        for width in widths {
            let height = 4, stride = width * bytesPerPixel + 7
            let skip = (width * 13) % (photo.width - width + 1)
            var source = [UInt8](repeating: 0x5A, count: stride * height)
            for row in 0..<height {
                let from = ((row * 97 % photo.height) * photo.width + skip) * bytesPerPixel
                source.replaceSubrange((row * stride)..<(row * stride + width * bytesPerPixel), with: photo.pixels[from..<(from + width * bytesPerPixel)])
            }
            // When the scalar loop, the vector path and the vector path in place convert them
            var scalar = [UInt8](repeating: 0x5A, count: source.count), vector = scalar, inPlace = source
            source.withUnsafeBytes { input in
                scalar.withUnsafeMutableBytes { output in
                    kernel.apply(
                        input.baseAddress!, sourceStride: stride, into: output.baseAddress!, destinationStride: stride,
                        width: width, height: height, bytesPerPixel: bytesPerPixel, vectorized: false
                    )
                }
                vector.withUnsafeMutableBytes { output in
                    kernel.apply(
                        input.baseAddress!, sourceStride: stride, into: output.baseAddress!, destinationStride: stride,
                        width: width, height: height, bytesPerPixel: bytesPerPixel
                    )
                }
            }
            inPlace.withUnsafeMutableBytes { buffer in
                kernel.apply(
                    buffer.baseAddress!, sourceStride: stride, into: buffer.baseAddress!, destinationStride: stride,
                    width: width, height: height, bytesPerPixel: bytesPerPixel
                )
            }
            // Then all three are the same bytes, padding included (the
            // padding copied from the source in place, untouched otherwise)
            // (first differing byte shown, not the arrays)
            #expect(Self.firstDifference(vector, scalar) == nil, "\(name), \(bytesPerPixel) bytes a pixel, width \(width)")
            for row in 0..<height {
                let pixelsEnd = row * stride + width * bytesPerPixel
                #expect(Self.firstDifference(inPlace[(row * stride)..<pixelsEnd], scalar[(row * stride)..<pixelsEnd]) == nil, "width \(width), row \(row) in place")
                #expect(inPlace[pixelsEnd..<(row * stride + stride)].allSatisfy { $0 == 0x5A })
            }
            changed += zip(scalar, source).filter { $0 != $1 }.count
            converted += width * height * 3
            // and alpha is copied
            if bytesPerPixel == 4 {
                for row in 0..<height {
                    for pixel in 0..<width {
                        let index = row * stride + pixel * 4 + 3
                        if vector[index] != source[index] { Issue.record("width \(width): alpha changed at \(index)") }
                    }
                }
            }
        }
        // And the conversion is no identity: most colour bytes change
        #expect(changed * 2 > converted, "\(changed) of \(converted) colour bytes changed")
    }

    @Test("all 16,777,216 RGB colours give the scalar loop's bytes")
    func everyColour() throws {
        let kernel = try Self.kernel("Adobe RGB (icc-profiles-free)")
        // One row per red value: 65,536 pixels of every green and blue.
        let width = 65_536
        var row = [UInt8](repeating: 0, count: width * 3)
        for index in 0..<width {
            row[index * 3 + 1] = UInt8(index & 0xFF)
            row[index * 3 + 2] = UInt8(index >> 8)
        }
        var mismatchedRows = 0
        for red in 0...255 {
            for index in 0..<width { row[index * 3] = UInt8(red) }
            if Self.inPlace(row, kernel, vectorized: true) != Self.inPlace(row, kernel, vectorized: false) { mismatchedRows += 1 }
        }
        #expect(mismatchedRows == 0)
    }

    /// `row` (one row of RGB pixels) converted in place in a copy.
    static func inPlace(_ row: [UInt8], _ kernel: MatrixShaperKernel, vectorized: Bool) -> [UInt8] {
        var pixels = row
        pixels.withUnsafeMutableBytes { buffer in
            kernel.apply(
                buffer.baseAddress!, sourceStride: buffer.count, into: buffer.baseAddress!, destinationStride: buffer.count,
                width: buffer.count / 3, height: 1, bytesPerPixel: 3, vectorized: vectorized
            )
        }
        return pixels
    }
}
