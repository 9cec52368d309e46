public import Foundation
import CHeif
public import AsyncWebImage

/// HEIF (HEIC) decoding on libheif, with the codecs the system's libheif
/// was built with (Debian 12's 1.15: libde265 decodes HEVC; x265 would
/// encode it, but this coder only decodes).
///
/// Decodes the file's primary image to ``PixelFormat/rgb8``, or ``PixelFormat/rgba8`` (straight alpha)
/// when it has an alpha plane; colours of an image flagged as premultiplied
/// are divided by alpha (rounded, clamped to 255). 10- and 12-bit images are reduced to 8 bits, rounded to the
/// nearest value (`v × 255 / (2ⁿ − 1)`). libheif applies the `clap`,
/// `irot` and `imir` transforms while decoding, so the pixels come out
/// upright and ``Image/orientation`` is always `.up`
/// (``ImageDecodingOptions/applyOrientation`` has nothing left to do).
/// The embedded ICC profile is converted to sRGB like every coder's
/// (``ImageDecodingOptions/keepsColorProfile``).
///
/// AVIF files are ``AVIFCoder``'s: this coder does not claim them, though
/// libheif could read them.
///
/// Safety on hostile input: the boxes are read first and
/// ``ImageDecodingOptions/maxPixelCount`` is checked against the primary
/// image's declared size (both as displayed and as its `ispe` box says)
/// before any image data is decoded; libheif's own per-side limit is set
/// to no more than the same bound (so a side longer than
/// ``ImageDecodingOptions/maxPixelCount`` fails in libheif's parser, with
/// its message). libheif 1.15 has no other security limits to set. Every libheif failure is
/// ``ImageError/undecodable(_:_:)`` with libheif's message.
///
/// Thumbnails and ``ImageDecodingOptions/scaleDownLargeImages`` decode the
/// smallest embedded thumbnail that can stand in for the primary image at
/// the size asked for (``ImageDecodingOptions/usesEmbeddedThumbnails``,
/// on by default, as libvips's `thumbnail` does), else the full image;
/// either is then resampled with the package's area filter (libheif 1.15
/// has no reduced-size decode for HEVC). A full decode never uses one.
/// The embedded thumbnail is checked as the primary image is (declared
/// size, derived-image descriptor); one that fails either way is passed
/// over for the primary image. Its colours are converted with the primary
/// image's profile, as libvips does.
///
/// - Important: a value with no shared state: every call makes its own
///   libheif context, so one coder may decode on any number of threads.
///
/// A derived primary image (a `grid` of tiles, as phones write HEIC, an
/// `iovl` overlay or an `iden` transform) is checked by this package before
/// libheif decodes it: libheif 1.15 sizes the canvas from the grid's or
/// overlay's descriptor and copies the tiles into it without comparing the
/// two, and fuzzing found a 657-byte file
/// (`Fixtures/fuzz/heic-libheif-open-finding.heic`) on which it then
/// allocated 800 MB and crashed. The descriptor must lie inside its box,
/// equal the item's `ispe` and be within the pixel limit; the grid must
/// have one tile per cell, all of one size within the limit, covering the
/// output without a spare row or column. The same checks cover every
/// image libheif builds on the way — the sources of a derived image and
/// the alpha and depth images of each — and a chain of references that
/// leads back to itself (libheif 1.15 would recurse until its stack
/// overflows) or runs more than 8 deep is refused, as is a box structure
/// this package could read otherwise than libheif (an item count that
/// disagrees with the entries, a repeated box). Anything else is
/// ``ImageError/undecodable(_:_:)``.
public struct HEIFCoder: ImageDecoding {
    /// Creates the coder.
    public init() {}

    /// Whether `data` is an ISO-BMFF file with a HEIF brand (and not an AVIF one).
    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .heic }

    /// Decodes the primary image of a HEIF file.
    ///
    /// - Throws: ``ImageError/tooLarge(_:limit:actual:)`` when the file
    ///   declares more than ``ImageDecodingOptions/maxPixelCount`` pixels
    ///   (checked before any image data is decoded);
    ///   ``ImageError/undecodable(_:_:)`` with libheif's message otherwise.
    public func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        try data.withUnsafeBytes { bytes -> Image in
            let (image, iccProfile) = try Self.decodeImageAndProfile(bytes, options: options)
            // The `colr` profile, converted to sRGB (or kept) as every coder does.
            return ColorManager.manage(consume image, iccProfile: iccProfile, options: options)
        }
    }
}
