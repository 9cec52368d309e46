import AsyncWebImage
import Foundation

/// Fuzzes colour management: the input is an ICC profile handed to lcms2
/// through `Image.convertedToSRGB()` for every pixel format, embedded by the
/// JPEG and PNG encoders (APP2 chunks, `iCCP`) and decoded back; odd-length
/// inputs are also spliced raw after a JPEG's SOI, to fuzz the APP2 chunk
/// walk. A profile may be refused, never fail a decode that succeeds
/// without it: a trap, a sanitizer report, a decode error for an embedded
/// profile, changed sizes or a changed alpha channel are findings.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzICCProfile(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let profile = start.map { Data(bytes: $0, count: count) } ?? Data()
    let formats: [PixelFormat] = [.rgb8, .rgba8, .gray8, .grayAlpha8]
    for format in formats {
        let pixels = (0..<(5 * 3 * format.bytesPerPixel)).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        guard let image = try? Image(width: 5, height: 3, pixelFormat: format, pixels: pixels, iccProfile: profile) else {
            fatalError("a valid image was refused")
        }
        let converted = image.convertedToSRGB()
        guard converted.size == image.size, converted.pixelFormat == format, converted.iccProfile == nil else {
            fatalError("conversion changed the image's shape: \(converted)")
        }
        if format.hasAlpha {
            for y in 0..<3 {
                for x in 0..<5 where converted.pixel(x: x, y: y)?.last != image.pixel(x: x, y: y)?.last {
                    fatalError("conversion changed alpha at (\(x), \(y))")
                }
            }
        }
    }
    // Embedded by the encoders, the profile must never make a decode fail.
    let base = (try? Image(width: 16, height: 8, pixelFormat: count % 3 == 0 ? .gray8 : .rgb8,
                           pixels: (0..<(16 * 8 * 3)).map { UInt8(truncatingIfNeeded: $0) }, iccProfile: profile))!
    for (coder, format) in [(JPEGCoder() as any ImageEncoding & ImageDecoding, ImageFormat.jpeg), (PNGCoder(), .png)] {
        guard let data = try? coder.encode(base, as: format, quality: 0.8) else { continue }
        for keep in [false, true] {
            do {
                let image = try coder.decode(data, options: ImageDecodingOptions(keepsColorProfile: keep))
                guard image.size == base.size else { fatalError("decoded \(image) from a 16×8 \(format)") }
            } catch {
                fatalError("an embedded profile made the \(format) decode fail: \(error)")
            }
        }
    }
    if count % 2 == 1, let jpeg = try? JPEGCoder().encode(base, as: .jpeg, quality: 0.8) {
        var spliced = Data(jpeg.prefix(2))
        spliced.append(profile)
        spliced.append(jpeg.dropFirst(2))
        do {
            _ = try JPEGCoder().decode(spliced, options: ImageDecodingOptions())
        } catch is ImageError {
        } catch {
            fatalError("not an ImageError: \(error)")
        }
    }
    return 0
}
