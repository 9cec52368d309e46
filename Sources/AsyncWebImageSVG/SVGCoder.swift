import CRsvg
public import Foundation
public import AsyncWebImage

/// SVG rasterisation on librsvg (with cairo), at the size asked for.
///
/// An SVG has no pixels of its own. Without a thumbnail size it renders at
/// its intrinsic size (its `width` and `height` at 96 dpi; with neither,
/// its `viewBox`'s size; with none of them, 300×150, as browsers size an
/// unsized replaced element). With ``ImageDecodingOptions/thumbnailPixelSize``
/// it renders straight at that size — enlarging too, as a vector image
/// loses nothing — fitted (or covering, with
/// ``ImageDecodingOptions/coversThumbnailPixelSize``) with its aspect ratio,
/// or stretched to it exactly without ``ImageDecodingOptions/preserveAspectRatio``;
/// ``ImageDecodingOptions/scaleDownLargeImages`` then bounds the result.
/// The result is ``PixelFormat/rgba8``, straight alpha (transparent where
/// nothing is drawn), in sRGB, the colour space SVG colours are in.
///
/// ## What an SVG may not do
/// A document is rendered from its bytes alone: librsvg is given no base
/// URL or file, so it loads no `href` (images, `use`, patterns, fonts),
/// no CSS `@import` and no XInclude other than `data:` URLs — not from the
/// network, not from the file system. Entity declarations (which expand,
/// or name files) fail the decode before librsvg sees the document.
///
/// ## Limits
/// Before librsvg parses anything, a pass over the markup counts elements
/// and their nesting (``maxElementCount``, ``maxNestingDepth``); the
/// raster's size is checked against ``ImageDecodingOptions/maxPixelCount``
/// and ``ImageDecodingOptions/maxDecodeMemoryBytes``; librsvg keeps its own
/// limits on references (`use` chains) and element counts. The render
/// runs on a thread of its own, and the decode gives up after
/// ``renderTimeout`` with ``ImageError/timeout(_:)`` (librsvg 2.54 cannot
/// cancel a render: that thread finishes it and drops the result).
public struct SVGCoder: ImageDecoding {
    /// The most elements a document may have; 100,000 by default.
    public var maxElementCount: Int
    /// The deepest elements may nest; 256 by default.
    public var maxNestingDepth: Int
    /// How long a render may take before the decode fails; 5 s by default.
    public var renderTimeout: Duration

    /// Creates the coder.
    ///
    /// - Parameters:
    ///   - maxElementCount: at least 1; 100,000 by default.
    ///   - maxNestingDepth: at least 1; 256 by default.
    ///   - renderTimeout: 5 seconds by default.
    public init(maxElementCount: Int = 100_000, maxNestingDepth: Int = 256, renderTimeout: Duration = .seconds(5)) {
        self.maxElementCount = max(1, maxElementCount)
        self.maxNestingDepth = max(1, maxNestingDepth)
        self.renderTimeout = renderTimeout
    }

    /// Whether `data` starts like an SVG document (see ``ImageFormat/svg``).
    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .svg }

    /// Renders the document at the size the options ask for.
    ///
    /// - Throws: ``ImageError/invalidImage(_:)`` past the element limits;
    ///   ``ImageError/tooLarge(_:limit:actual:)`` for a raster over the limits;
    ///   ``ImageError/timeout(_:)``; ``ImageError/undecodable(_:_:)`` with
    ///   librsvg's message.
    public func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        let handle = try data.withUnsafeBytes { bytes throws(ImageError) -> OpaquePointer in
            _ = try SVGStructureScan(bytes, maxElements: maxElementCount, maxDepth: maxNestingDepth)
            var error: UnsafeMutablePointer<CRsvgError>?
            guard let handle = rsvg_handle_new_from_data(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &error) else {
                let message = error.flatMap { $0.pointee.message.map { String(cString: $0) } } ?? "librsvg could not read the document"
                if let error { g_error_free(error) }
                throw .undecodable(.svg, message)
            }
            return handle
        }
        var owned = true
        defer { if owned { g_object_unref(UnsafeMutableRawPointer(handle)) } }
        rsvg_handle_set_dpi(handle, 96)
        let intrinsic = Self.intrinsicSize(handle)
        let size = Self.rasterSize(intrinsic: intrinsic, options: options)
        try options.checkPixelLimit(size)
        try options.checkDecodeMemory(bytes: size.pixelCount * 8)
        let job = SVGRenderJob(
            handle: handle, size: size,
            viewport: CRsvgRectangle(x: 0, y: 0, width: Double(size.width), height: Double(size.height))
        )
        owned = false
        let rgba = try job.run(timeout: renderTimeout)
        return Image.make(width: size.width, height: size.height, pixelFormat: .rgba8, format: .svg) { out in
            rgba.withUnsafeBytes { out.copyMemory(from: $0) }
        }
    }

    /// The intrinsic size, at 96 dpi (see the type's discussion).
    public func declaredSize(of data: Data) -> PixelSize? {
        data.withUnsafeBytes { bytes -> PixelSize? in
            guard (try? SVGStructureScan(bytes, maxElements: maxElementCount, maxDepth: maxNestingDepth)) != nil,
                  let handle = rsvg_handle_new_from_data(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, nil)
            else { return nil }
            defer { g_object_unref(UnsafeMutableRawPointer(handle)) }
            rsvg_handle_set_dpi(handle, 96)
            let size = Self.intrinsicSize(handle)
            return PixelSize(width: Self.side(size.width), height: Self.side(size.height))
        }
    }

    /// The document's size in pixels: width and height, else the viewBox's, else 300×150.
    static func intrinsicSize(_ handle: OpaquePointer) -> (width: Double, height: Double) {
        var width = 0.0, height = 0.0
        if rsvg_handle_get_intrinsic_size_in_pixels(handle, &width, &height) != 0, width > 0, height > 0 {
            return (width, height)
        }
        var hasWidth: Int32 = 0, hasHeight: Int32 = 0, hasViewBox: Int32 = 0
        var lengthW = CRsvgLength(), lengthH = CRsvgLength()
        var viewBox = CRsvgRectangle()
        rsvg_handle_get_intrinsic_dimensions(handle, &hasWidth, &lengthW, &hasHeight, &lengthH, &hasViewBox, &viewBox)
        if hasViewBox != 0, viewBox.width > 0, viewBox.height > 0 { return (viewBox.width, viewBox.height) }
        return (300, 150)
    }

    /// A length in pixels as a side of at least 1, bounded before it is
    /// converted (a document may declare any number, or an infinite one).
    static func side(_ length: Double) -> Int {
        guard length.isFinite, length > 0 else { return 1 }
        return max(1, Int(min(length, 1e9).rounded()))
    }

    /// The raster size for `intrinsic` and the options (see the type's discussion).
    static func rasterSize(intrinsic: (width: Double, height: Double), options: ImageDecodingOptions) -> PixelSize {
        var size = PixelSize(width: side(intrinsic.width), height: side(intrinsic.height))
        if let thumbnail = options.thumbnailPixelSize, thumbnail.width > 0, thumbnail.height > 0 {
            if options.preserveAspectRatio {
                let ratios = (Double(thumbnail.width) / intrinsic.width, Double(thumbnail.height) / intrinsic.height)
                let ratio = options.coversThumbnailPixelSize ? max(ratios.0, ratios.1) : min(ratios.0, ratios.1)
                size = PixelSize(width: side(intrinsic.width * ratio), height: side(intrinsic.height * ratio))
            } else {
                size = thumbnail
            }
        }
        var unsized = options
        unsized.thumbnailPixelSize = nil
        return unsized.targetSize(forStored: size, orientation: .up) ?? size
    }
}
