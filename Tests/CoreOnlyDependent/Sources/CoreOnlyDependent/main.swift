import AsyncWebImage
import Foundation

// Encodes a 3×2 image as PNG and decodes it again through the core's
// registry, then asks the registry for a WebP: the core answers
// `unsupportedFormat` because WebP is a product of its own. Exits 1 on any
// surprise, so the check fails when the core stops working alone.
let pixels: [UInt8] = (0..<(3 * 2 * 4)).map { UInt8(truncatingIfNeeded: $0 * 10) }
let image = try Image(width: 3, height: 2, pixelFormat: .rgba8, bytesPerRow: 12, pixels: pixels)
let png = try ImageCoderRegistry.builtIn.encode(image, as: .png, quality: 1)
let decoded = try ImageCoderRegistry.builtIn.decode(png)
guard decoded.size == PixelSize(width: 3, height: 2), decoded.rgba8Pixels == pixels else {
    print("core-only: the PNG round trip changed the pixels")
    exit(1)
}
let webp = Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)
do {
    _ = try ImageCoderRegistry.builtIn.decode(webp)
    print("core-only: the core decoded WebP, which it does not link")
    exit(1)
} catch {
    print("core-only: PNG round trip exact; WebP refused (\(error.localizedDescription))")
}
