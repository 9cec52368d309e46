import Foundation
import AsyncWebImage

/// The pages of a multi-page TIFF as the frames of an animation, each
/// drawn on a canvas of the first page's size (RGBA8, transparent where a
/// smaller page does not reach).
///
/// Not `Sendable`: one task at a time, as ``AnimatedFrameDecoder`` says.
final class TIFFPageSequenceDecoder: AnimatedFrameDecoder {
    let info: AnimatedImage.Info
    private(set) var nextFrameIndex = 0

    private let handle: TIFFHandle
    /// The main-chain directories that are pages, not reduced-resolution copies.
    private let pages: [Int]
    private let options: ImageDecodingOptions

    /// Reads the directory chain; `nil` for a single page.
    init?(_ data: Data, options: ImageDecodingOptions) throws(ImageError) {
        handle = try TIFFHandle(data, maxSingleAllocation: options.maxDecodeMemoryBytes)
        let first = try TIFFPage(handle)
        var pages: [Int] = []
        for index in 0..<handle.directoryCount {
            guard (try? handle.select(directory: index)) != nil, let page = try? TIFFPage(handle) else { break }
            if !page.isReducedResolution || index == 0 { pages.append(index) }
        }
        guard pages.count > 1 else { return nil }
        try options.checkPixelLimit(first.size)
        let (total, overflow) = first.size.pixelCount.multipliedReportingOverflow(by: pages.count)
        guard !overflow, total <= options.maxAnimationPixelCount else {
            throw .tooLarge(.animationPixels, limit: Int64(options.maxAnimationPixelCount), actual: overflow ? nil : Int64(total))
        }
        self.pages = pages
        self.options = options
        info = AnimatedImage.Info(
            canvasWidth: first.width, canvasHeight: first.height,
            frameDurations: Array(repeating: .zero, count: pages.count), loopCount: 0
        )
    }

    func decodeNextFrame() throws -> Image? {
        guard nextFrameIndex < pages.count else { return nil }
        try handle.select(directory: pages[nextFrameIndex])
        let page = try TIFFPage(handle)
        let decoded = try TIFFCoder.decodePage(handle, page: page, target: nil, options: options)
        nextFrameIndex += 1
        return Self.canvas(decoded, width: info.canvasWidth, height: info.canvasHeight)
    }

    func rewind() throws {
        nextFrameIndex = 0
    }

    /// `image` widened to RGBA8 on a transparent canvas, at its top-left corner.
    static func canvas(_ image: Image, width: Int, height: Int) -> Image {
        Image.make(width: width, height: height, pixelFormat: .rgba8, format: .tiff) { out in
            out.initializeMemory(as: UInt8.self, repeating: 0)
            let channels = image.pixelFormat.bytesPerPixel
            image.withUnsafeBytes { source in
                for y in 0..<min(height, image.height) {
                    for x in 0..<min(width, image.width) {
                        let s = y * image.bytesPerRow + x * channels
                        let d = (y * width + x) * 4
                        switch image.pixelFormat {
                        case .gray8: out[d] = source[s]; out[d + 1] = source[s]; out[d + 2] = source[s]; out[d + 3] = 255
                        case .grayAlpha8: out[d] = source[s]; out[d + 1] = source[s]; out[d + 2] = source[s]; out[d + 3] = source[s + 1]
                        case .rgb8: out[d] = source[s]; out[d + 1] = source[s + 1]; out[d + 2] = source[s + 2]; out[d + 3] = 255
                        case .rgba8: for c in 0..<4 { out[d + c] = source[s + c] }
                        }
                    }
                }
            }
        }
    }
}
