// Package access (the targets are declared in the library's manifest when
// AWI_FUZZ=1): `Image.resampled(to:)`, the resampler the full-decode route
// of a thumbnail uses, the reference a decoder that resamples while
// decoding must match.
import AsyncWebImage
import Foundation

/// What every fuzz target checks, and the decode options it varies.
///
/// A finding is anything that is not a typed ``ImageError`` or a valid
/// image: a trap, a sanitizer report, an error of another type, an image
/// whose sizes do not add up. libFuzzer counts each of them as a crash.
package enum FuzzInput {
    /// The pixel limit the targets decode with: 4 megapixels. The library's
    /// 100-megapixel default is a limit by design (a legitimate 400 MB
    /// allocation); fuzzing with it would only make every execution slow.
    /// Tighter, it keeps runs fast and still checks that the limit holds.
    package static let maxPixelCount = 1 << 22

    /// Decode options chosen by `selector` (the fuzzer controls it through
    /// the input's length), so one corpus covers full decodes, thumbnails,
    /// stretched thumbnails, scale-down and applied orientation.
    package static func options(_ selector: Int) -> ImageDecodingOptions {
        switch selector % 4 {
        case 0:
            ImageDecodingOptions(maxPixelCount: maxPixelCount)
        case 1:
            ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 48, height: 32), maxPixelCount: maxPixelCount, applyOrientation: true)
        case 2:
            ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 7, height: 300), preserveAspectRatio: false, maxPixelCount: maxPixelCount)
        default:
            ImageDecodingOptions(scaleDownLargeImages: true, scaleDownLimitBytes: 16 * 1024, maxPixelCount: maxPixelCount, applyOrientation: true)
        }
    }

    /// Runs `body`, which may fail only with an ``ImageError``; returns its
    /// result or `nil` when it threw one.
    package static func expectingImageError<Result>(_ what: String, _ body: () throws -> Result) -> Result? {
        do {
            return try body()
        } catch is ImageError {
            return nil
        } catch {
            fatalError("\(what) threw \(type(of: error)), not ImageError: \(error)")
        }
    }

    /// Traps unless `image` is a consistent bitmap within the pixel limit
    /// (and, for a thumbnail, no larger than asked), then reads every byte
    /// of it, so AddressSanitizer sees a storage shorter than its sizes.
    package static func check(_ image: Image, options: ImageDecodingOptions, isPreview: Bool, _ what: String) {
        precondition(image.width > 0 && image.height > 0, "\(what): empty image \(image.size)")
        precondition(image.width * image.height <= options.maxPixelCount, "\(what): \(image.size) over the pixel limit")
        precondition(image.bytesPerRow >= image.width * image.pixelFormat.bytesPerPixel, "\(what): bytesPerRow \(image.bytesPerRow)")
        precondition(image.cost >= image.bytesPerRow * image.height, "\(what): \(image.cost) bytes for \(image.size)")
        precondition(image.isPreview == isPreview, "\(what): isPreview \(image.isPreview)")
        if let thumbnail = options.thumbnailPixelSize {
            let shown = options.applyOrientation ? image.size : image.orientedSize
            precondition(
                shown.width <= thumbnail.width && shown.height <= thumbnail.height,
                "\(what): \(shown) does not fit the thumbnail \(thumbnail)"
            )
        }
        if options.applyOrientation {
            precondition(image.orientation == .up, "\(what): orientation \(image.orientation) left after applying it")
        }
        let checksum = image.withUnsafeBytes { bytes in bytes.reduce(UInt8(0)) { $0 &+ $1 } }
        blackHole(checksum)
    }

    /// Keeps the optimiser from dropping a computation whose result is unused.
    @inline(never)
    package static func blackHole<T>(_ value: T) {
        withExtendedLifetime(value) {}
    }
}

/// SplitMix64: a tiny deterministic generator, seeded from the input, so a
/// given input always replays the same chunking.
package struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    /// A generator seeded with an FNV-1a hash of `bytes`.
    package init(seededBy bytes: some Collection<UInt8>) {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3
        }
        state = hash
    }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension FuzzInput {
    /// The options a decode with `options(selector)` is compared with: a
    /// thumbnail for a full decode, a full decode for anything else.
    package static func partnerOptions(_ selector: Int) -> ImageDecodingOptions {
        options(selector % 4 == 0 ? 1 : 0)
    }

    /// Decodes with the options `selector` picks and with their partner
    /// (``partnerOptions(_:)``): a differential check that the thumbnail and
    /// scale-down paths (DCT scaling for JPEG, shrink-on-load for PNG) accept
    /// exactly the data the full decode accepts. A server that thumbnails must
    /// not reject an image a full decode shows, nor show one it rejects.
    ///
    /// `thumbnailMayAcceptMore` allows two documented exceptions: a 1/8-scale
    /// thumbnail (or scale-down) of a progressive JPEG reads only the scans it needs (see
    /// `JPEGScanPruner`), so damage inside the entropy data of the scans it
    /// drops can fail a full decode and not the thumbnail (their headers
    /// are checked as libjpeg checks them); a HEIC thumbnail may decode the
    /// file's embedded thumbnail (`ImageDecodingOptions.usesEmbeddedThumbnails`),
    /// so damage to the primary image alone fails only the full decode. The
    /// reverse (a thumbnail failing where the full decode succeeds) is never
    /// allowed: a thumbnail item that fails is passed over for the primary.
    package static func decodeBothWays(
        _ decoder: some ImageDecoding, as format: ImageFormat, _ data: Data, selector: Int, _ what: String,
        thumbnailMayAcceptMore: Bool = false, thumbnailIsResampledFullDecode: Bool = false
    ) {
        let first = options(selector)
        let second = partnerOptions(selector)
        let image = expectingImageError(what) { try decoder.decode(data, options: first) }
        let partner = expectingImageError(what) { try decoder.decode(data, options: second) }
        for (result, options) in [(image, first), (partner, second)] {
            guard let result else { continue }
            check(result, options: options, isPreview: false, what)
            precondition(result.format == format, "\(what): format \(result.format)")
        }
        // Thumbnails and scale-downs both decode at a reduced DCT scale.
        func reduces(_ options: ImageDecodingOptions) -> Bool { options.thumbnailPixelSize != nil || options.scaleDownLargeImages }
        let thumbnailOnly = image != nil && partner == nil ? reduces(first)
            : image == nil && partner != nil ? reduces(second) : false
        if thumbnailMayAcceptMore && thumbnailOnly { return }
        precondition(
            (image == nil) == (partner == nil),
            "\(what): \(image == nil ? "fails" : "succeeds") with \(first) but \(partner == nil ? "fails" : "succeeds") with \(second)"
        )
        if thumbnailIsResampledFullDecode, let image, let partner {
            // One of the two options is always the plain full decode.
            let (full, reduced, reducedOptions) = reduces(first) ? (partner, image, first) : (image, partner, second)
            let fullOptions = reduces(first) ? second : first
            if resampledWhileDecoding(reduced, options: reducedOptions, differsFrom: full) == nil { return }
            // An embedded ICC profile is converted to sRGB after the decode,
            // so after resampling in the thumbnail and before it in the full
            // decode: the orders legitimately differ (the conversion is not
            // linear). Kept profiles take the conversion out; then the
            // pixels must be equal.
            var keptReduced = reducedOptions, keptFull = fullOptions
            keptReduced.keepsColorProfile = true
            keptFull.keepsColorProfile = true
            let reducedKept = expectingImageError(what) { try decoder.decode(data, options: keptReduced) }
            let fullKept = expectingImageError(what) { try decoder.decode(data, options: keptFull) }
            guard let reducedKept, let fullKept else {
                preconditionFailure("\(what): fails with the colour profile kept, succeeds with it converted")
            }
            if let row = resampledWhileDecoding(reducedKept, options: keptReduced, differsFrom: fullKept) {
                preconditionFailure("\(what): row \(row) of the \(reducedKept.size) image differs from the full decode resampled")
            }
        }
    }

    /// The first row where `reduced` (a thumbnail or scale-down that the
    /// coder resampled while decoding, GIF row by row, AVIF in bands) is not,
    /// byte for byte, `full` resampled to its size, or `nil`: the route that
    /// never holds the full-size image must not change a pixel. A different
    /// pixel format is row 0. `nil` too when an orientation was applied to a
    /// rotated or mirrored image (the reference would have to be oriented
    /// the same way; the unit tests cover that).
    static func resampledWhileDecoding(_ reduced: Image, options: ImageDecodingOptions, differsFrom full: Image) -> Int? {
        guard full.orientation == .up || !options.applyOrientation else { return nil }
        let reference = full.resampled(to: reduced.size)
        guard reduced.pixelFormat == reference.pixelFormat else { return 0 }
        let rowBytes = reduced.width * reduced.pixelFormat.bytesPerPixel
        return reduced.withUnsafeBytes { ours in
            reference.withUnsafeBytes { theirs in
                (0..<reduced.height).first { row in
                    let a = ours[(row * reduced.bytesPerRow)..<(row * reduced.bytesPerRow + rowBytes)]
                    let b = theirs[(row * reference.bytesPerRow)..<(row * reference.bytesPerRow + rowBytes)]
                    return !a.elementsEqual(b)
                }
            }
        }
    }
}
