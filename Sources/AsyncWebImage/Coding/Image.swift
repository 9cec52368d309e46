public import Foundation

/// A decoded bitmap: a value over an immutable, shared pixel buffer.
///
/// Copying an `Image` copies a reference, never the pixels, so images move
/// between tasks, caches and actors for free. Rows run top to bottom,
/// `bytesPerRow` bytes apart (which may exceed `width × bytesPerPixel`); the
/// channel layout is ``pixelFormat`` with straight (not premultiplied) alpha.
///
/// The pixels are stored as decoded: ``orientation`` says how to turn them to
/// display upright, unless the decoder was asked to apply it (then it is `.up`).
public struct Image: Sendable {
    /// Width of the stored pixels.
    public let width: Int
    /// Height of the stored pixels.
    public let height: Int
    /// Layout of one pixel.
    public let pixelFormat: PixelFormat
    /// Distance in bytes between the starts of two consecutive rows.
    public let bytesPerRow: Int
    /// How the stored pixels must be turned to display upright (EXIF 1–8).
    public let orientation: Image.Orientation
    /// The format the image was decoded from (`.unknown` for images built in memory).
    public let format: ImageFormat
    /// Whether this is a progressive preview of a download still in progress
    /// rather than the final image. Previews are never cached.
    public let isPreview: Bool
    /// The ICC profile of the stored pixels when they are not sRGB: set when
    /// ``ImageDecodingOptions/keepsColorProfile`` kept a file's non-sRGB
    /// pixels (``colorConversion`` is then ``Image/ColorConversion/kept``), or when
    /// the image was created with one. `nil` means sRGB. Encoders embed it
    /// (JPEG APP2, PNG `iCCP`); ``convertedToSRGB()`` applies it.
    public internal(set) var iccProfile: Data?
    /// What colour management did at decode (``Image/ColorConversion/none`` for
    /// images without a profile, previews, and images made in memory without
    /// one); ``Image/ColorConversion/skipped(reason:)`` says a profile was there
    /// but could not be used, so the pixels are unconverted.
    public internal(set) var colorConversion: Image.ColorConversion = .none

    /// The animation this image is the first frame of, when it was decoded
    /// from an animated file (GIF) without ``ImageOptions/decodeFirstFrameOnly``;
    /// `nil` for still images. The image's own pixels are frame 0 (after the
    /// thumbnail options or, with ``ImageOptions/transformAnimatedImage``,
    /// the transformer); the animation's frames are made the same way.
    public internal(set) var animation: AnimatedImage?

    package private(set) var storage: PixelStorage

    /// Bytes of pixel memory this image keeps alive; what caches count:
    /// its pixels plus, for an animated image, what its frame buffer may
    /// hold (``AnimatedImage/cost``).
    public var cost: Int { storage.bytes.count + (animation?.cost ?? 0) }

    /// Width × height of the stored pixels.
    public var size: PixelSize { PixelSize(width: width, height: height) }

    /// The size once ``orientation`` is applied (width and height swapped for EXIF 5–8).
    public var orientedSize: PixelSize {
        orientation.swapsDimensions ? PixelSize(width: height, height: width) : size
    }

    /// Creates an image from pixel bytes.
    ///
    /// - Parameters:
    ///   - width: Width in pixels, at least 1.
    ///   - height: Height in pixels, at least 1.
    ///   - pixelFormat: Layout of the bytes.
    ///   - bytesPerRow: Row stride; `nil` for tightly packed rows.
    ///   - pixels: At least `bytesPerRow × height` bytes (extra bytes are kept but ignored).
    ///   - orientation: EXIF orientation of the pixels.
    ///   - format: The source format, if any.
    ///   - iccProfile: The ICC profile the pixels are in; `nil` for sRGB.
    ///     With one, ``colorConversion`` is ``Image/ColorConversion/kept``.
    /// - Throws: ``ImageError/invalidImage(_:)`` when the sizes do not add up.
    public init(
        width: Int,
        height: Int,
        pixelFormat: PixelFormat,
        bytesPerRow: Int? = nil,
        pixels: [UInt8],
        orientation: Image.Orientation = .up,
        format: ImageFormat = .unknown,
        iccProfile: Data? = nil
    ) throws(ImageError) {
        let stride = bytesPerRow ?? width * pixelFormat.bytesPerPixel
        guard width > 0, height > 0, stride >= width * pixelFormat.bytesPerPixel else {
            throw .invalidImage("\(width)×\(height) \(pixelFormat) with \(stride) bytes per row")
        }
        let (needed, overflow) = stride.multipliedReportingOverflow(by: height)
        guard !overflow, pixels.count >= needed else {
            throw .invalidImage("\(pixels.count) bytes for \(width)×\(height) \(pixelFormat), \(stride) per row")
        }
        self.init(
            width: width, height: height, pixelFormat: pixelFormat, bytesPerRow: stride,
            orientation: orientation, format: format, isPreview: false,
            storage: PixelStorage(bytes: pixels)
        )
        if let iccProfile {
            self.iccProfile = iccProfile
            self.colorConversion = .kept
        }
    }

    /// The unchecked memberwise initialiser the coders use.
    package init(
        width: Int,
        height: Int,
        pixelFormat: PixelFormat,
        bytesPerRow: Int,
        orientation: Image.Orientation,
        format: ImageFormat,
        isPreview: Bool = false,
        storage: PixelStorage
    ) {
        precondition(bytesPerRow >= width * pixelFormat.bytesPerPixel && storage.bytes.count >= bytesPerRow * height)
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.bytesPerRow = bytesPerRow
        self.orientation = orientation
        self.format = format
        self.isPreview = isPreview
        self.storage = storage
    }

    /// Allocates a tightly packed image and lets `fill` write all of its bytes.
    package static func make(
        width: Int,
        height: Int,
        pixelFormat: PixelFormat,
        orientation: Image.Orientation = .up,
        format: ImageFormat = .unknown,
        isPreview: Bool = false,
        fill: (UnsafeMutableRawBufferPointer) throws -> Void
    ) rethrows -> Image {
        let stride = width * pixelFormat.bytesPerPixel
        let storage = try PixelStorage(count: stride * height, fill: fill)
        return Image(
            width: width, height: height, pixelFormat: pixelFormat, bytesPerRow: stride,
            orientation: orientation, format: format, isPreview: isPreview, storage: storage
        )
    }

    /// Lets `body` rewrite the pixels in place, when this value holds the
    /// only reference to its storage; `false`, with nothing done, when
    /// another copy of the image shares it (the caller then writes a new
    /// buffer). The way a decoder converts an image it has just made without
    /// a second buffer as large as the image.
    package mutating func rewritingUniquelyOwnedPixels(_ body: (UnsafeMutableRawBufferPointer) -> Void) -> Bool {
        guard isKnownUniquelyReferenced(&storage) else { return false }
        storage.rewrite(body)
        return true
    }

    /// All pixel bytes, shared with the image (no copy is made).
    public var pixels: [UInt8] { storage.bytes }

    /// Calls `body` with the pixel bytes, without copying them.
    ///
    /// - Important: the pointer is valid only inside `body`.
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try storage.bytes.withUnsafeBytes(body)
    }

    /// The channel values of the pixel at (`x`, `y`) in stored (not oriented)
    /// coordinates, or `nil` outside the image.
    public func pixel(x: Int, y: Int) -> [UInt8]? {
        guard x >= 0, y >= 0, x < width, y < height else { return nil }
        let start = y * bytesPerRow + x * pixelFormat.bytesPerPixel
        return Array(storage.bytes[start..<(start + pixelFormat.bytesPerPixel)])
    }

    /// A copy of the image with a different metadata, sharing the pixels
    /// (and keeping the colour profile and conversion).
    package func with(orientation: Image.Orientation? = nil, format: ImageFormat? = nil, isPreview: Bool? = nil) -> Image {
        var copy = Image(
            width: width, height: height, pixelFormat: pixelFormat, bytesPerRow: bytesPerRow,
            orientation: orientation ?? self.orientation, format: format ?? self.format,
            isPreview: isPreview ?? self.isPreview, storage: storage
        )
        copy.iccProfile = iccProfile
        copy.colorConversion = colorConversion
        return copy
    }

    /// A copy of the image, sharing the pixels, with a colour profile and
    /// the conversion that led to it.
    package func with(colorProfile: Data?, conversion: Image.ColorConversion) -> Image {
        var copy = self
        copy.iccProfile = colorProfile
        copy.colorConversion = conversion
        return copy
    }

    /// Whether `other` has the same size, pixel format and pixel values (row
    /// padding ignored), whatever its metadata.
    public func hasSamePixels(as other: Image) -> Bool {
        guard width == other.width, height == other.height, pixelFormat == other.pixelFormat else { return false }
        if storage === other.storage && bytesPerRow == other.bytesPerRow { return true }
        let rowBytes = width * pixelFormat.bytesPerPixel
        return withUnsafeBytes { lhs in
            other.withUnsafeBytes { rhs in
                for row in 0..<height {
                    let a = UnsafeRawBufferPointer(rebasing: lhs[(row * bytesPerRow)..<(row * bytesPerRow + rowBytes)])
                    let b = UnsafeRawBufferPointer(rebasing: rhs[(row * other.bytesPerRow)..<(row * other.bytesPerRow + rowBytes)])
                    if !a.elementsEqual(b) { return false }
                }
                return true
            }
        }
    }

    /// The largest difference between any channel of `self` and of `other`,
    /// or `nil` when the sizes or pixel formats differ. Useful to compare
    /// decoders whose IDCTs round differently.
    public func maximumChannelDifference(from other: Image) -> Int? {
        guard width == other.width, height == other.height, pixelFormat == other.pixelFormat else { return nil }
        let rowBytes = width * pixelFormat.bytesPerPixel
        var worst = 0
        withUnsafeBytes { lhs in
            other.withUnsafeBytes { rhs in
                for row in 0..<height {
                    let a = row * bytesPerRow, b = row * other.bytesPerRow
                    for i in 0..<rowBytes {
                        worst = max(worst, abs(Int(lhs[a + i]) - Int(rhs[b + i])))
                    }
                }
            }
        }
        return worst
    }
}

extension Image: Equatable {
    /// Images are equal when their pixels and metadata (``iccProfile``
    /// included, ``colorConversion`` not) are equal.
    public static func == (lhs: Image, rhs: Image) -> Bool {
        lhs.orientation == rhs.orientation && lhs.format == rhs.format && lhs.iccProfile == rhs.iccProfile
            && lhs.isPreview == rhs.isPreview && lhs.hasSamePixels(as: rhs)
    }
}

extension Image: CustomStringConvertible {
    public var description: String {
        "Image(\(width)×\(height) \(pixelFormat), \(format), orientation \(orientation.rawValue)\(isPreview ? ", preview" : ""))"
    }
}
