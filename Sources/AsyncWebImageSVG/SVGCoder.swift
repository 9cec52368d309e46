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
/// Before librsvg sees anything, a pass over the markup measures what the
/// render would cost and refuses what is over a limit: elements and their
/// nesting as written (``maxElementCount``, ``maxNestingDepth``), elements
/// drawn once every `<use>`, pattern, marker, mask and filter reference is
/// expanded (``maxRenderedElementCount``: the fan-out of references to
/// references multiplies), the depth of references
/// (``maxReferenceDepth``), and filter primitives applied, weighted by
/// their cost (``maxFilterPrimitiveCount``: a turbulence counts its octaves).
/// Once the raster's size is known it is checked against
/// ``ImageDecodingOptions/maxPixelCount`` and
/// ``ImageDecodingOptions/maxDecodeMemoryBytes``, and the pixels the
/// filters would process against ``maxFilterPixelCount``.
///
/// ## A render that stops
/// librsvg 2.54 cannot stop a render once it has started. So each render
/// runs in a worker process — this same executable started again, before
/// its `main`; an application needs no helper binary and no set-up — at
/// nice 10, with a CPU time limit and a memory budget (16 rasters, at least
/// 256 MiB, at most twice ``ImageDecodingOptions/maxDecodeMemoryBytes``;
/// past it the render fails with ``ImageError/tooLarge(_:limit:actual:)``
/// of decoded bytes); a render past
/// ``renderTimeout`` (counted from the call, waiting included) or whose
/// task is cancelled has its worker killed, its CPU free at once, and fails
/// with ``ImageError/timeout(_:)``. The loader awaits
/// ``decodeScheduled(_:options:)`` (``SelfSchedulingImageDecoding``):
/// renders wait for one of ``maxConcurrentRenders`` dedicated threads
/// (``DedicatedThreadPool``), each of which waits on its worker's socket,
/// and hold none of the loader's CPU permits. ``decode(_:options:)`` runs
/// the same render on the caller's thread. Workers are kept for the next
/// render and end after 20 idle seconds.
///
/// Where the coder is not part of the main executable (built into a shared
/// library that a program loads), no worker can be started: renders run on
/// the dedicated threads in the process itself, and one past its time limit
/// runs to its end, its result dropped.
public struct SVGCoder: ImageDecoding, SelfSchedulingImageDecoding {
    /// The most elements a document may have, as written; 100,000 by default.
    public var maxElementCount: Int
    /// The deepest elements may nest, as written; 256 by default.
    public var maxNestingDepth: Int
    /// The most elements a render may draw, each reference's target
    /// (`<use>`, a pattern, a filter…) counted again each time it is
    /// referenced; 200,000 by default.
    public var maxRenderedElementCount: Int
    /// The longest chain of references, one inside another; 16 by default.
    public var maxReferenceDepth: Int
    /// The most filter primitives a render may apply, each application
    /// counted and weighted by its cost per pixel (a blend 1, a blur 2, a
    /// turbulence 4 and one per octave, a convolution one per nine kernel
    /// entries); 1,000 by default.
    public var maxFilterPrimitiveCount: Int
    /// The most pixels the filters of one render may process: the weighted
    /// primitive applications times the raster's pixels; 64 Mi by default
    /// (a drop shadow on 20 elements of a 1024 × 1024 raster).
    public var maxFilterPixelCount: Int
    /// How long a render may take, counted from the decode's call (waiting
    /// for a thread included), before its worker is killed and the decode
    /// fails; 5 s by default.
    public var renderTimeout: Duration
    /// The most renders running at once (the dedicated threads, and the
    /// workers alive).
    public var maxConcurrentRenders: Int { renderer.maxConcurrentRenders }

    /// The threads and workers of this coder and its copies.
    let renderer: SVGRenderer

    /// Creates the coder.
    ///
    /// - Parameters:
    ///   - maxElementCount: at least 1; 100,000 by default.
    ///   - maxNestingDepth: at least 1; 256 by default.
    ///   - maxRenderedElementCount: at least 1; 200,000 by default.
    ///   - maxReferenceDepth: at least 1; 16 by default.
    ///   - maxFilterPrimitiveCount: 1,000 by default.
    ///   - maxFilterPixelCount: 64 Mi by default.
    ///   - renderTimeout: 5 seconds by default.
    ///   - maxConcurrentRenders: at least 1; by default, the cores this
    ///     process may use (the process-wide CPU limit, ``ImageLoader/CPULimits/maxConcurrentWork``).
    ///   - renderNice: the workers' nice value, 0 to 19; 10 by default, so
    ///     that other work of the machine goes first.
    public init(
        maxElementCount: Int = 100_000, maxNestingDepth: Int = 256, maxRenderedElementCount: Int = 200_000,
        maxReferenceDepth: Int = 16, maxFilterPrimitiveCount: Int = 1_000, maxFilterPixelCount: Int = 64 << 20,
        renderTimeout: Duration = .seconds(5), maxConcurrentRenders: Int? = nil, renderNice: Int = 10
    ) {
        self.maxElementCount = max(1, maxElementCount)
        self.maxNestingDepth = max(1, maxNestingDepth)
        self.maxRenderedElementCount = max(1, maxRenderedElementCount)
        self.maxReferenceDepth = max(1, maxReferenceDepth)
        self.maxFilterPrimitiveCount = max(0, maxFilterPrimitiveCount)
        self.maxFilterPixelCount = max(0, maxFilterPixelCount)
        self.renderTimeout = renderTimeout
        renderer = SVGRenderer(
            maxConcurrentRenders: maxConcurrentRenders ?? ConcurrencyLimiter.shared.limit,
            nice: Int32(clamping: renderNice)
        )
    }

    /// Whether `data` starts like an SVG document (see ``ImageFormat/svg``).
    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .svg }

    /// Renders the document at the size the options ask for, on the
    /// calling thread (which waits for the worker; see the type's discussion).
    ///
    /// - Throws: ``ImageError/invalidImage(_:)`` past the element count or
    ///   nesting; ``ImageError/tooLarge(_:limit:actual:)`` past the other limits or
    ///   for a raster over the options' limits; ``ImageError/timeout(_:)``;
    ///   ``ImageError/undecodable(_:_:)`` with librsvg's message, or for
    ///   references that form a cycle.
    public func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        try renderer.render(job(data, options: options), cancellation: nil)
    }

    /// Renders the document on one of the coder's dedicated threads, in a
    /// worker process (see the type's discussion); cancelling the task
    /// kills the worker.
    ///
    /// - Throws: As ``decode(_:options:)``, and `CancellationError`.
    package func decodeScheduled(_ data: Data, options: ImageDecodingOptions) async throws -> Image {
        try await renderer.renderScheduled(job(data, options: options))
    }

    /// The structure check, then what the render needs; the deadline starts now.
    private func job(_ data: Data, options: ImageDecodingOptions) throws -> SVGRenderer.Job {
        let deadline = ContinuousClock.now + renderTimeout
        let scan = try data.withUnsafeBytes { try SVGStructureScan($0, limits: limits) }
        return SVGRenderer.Job(
            data: data, options: options, filterWork: scan.filterWork, maxFilterPixelCount: maxFilterPixelCount,
            timeout: renderTimeout, deadline: deadline
        )
    }

    private var limits: SVGStructureScan.Limits {
        SVGStructureScan.Limits(
            elements: maxElementCount, depth: maxNestingDepth, renderedElements: maxRenderedElementCount,
            referenceDepth: maxReferenceDepth, filterPrimitives: maxFilterPrimitiveCount
        )
    }

    /// The intrinsic size, at 96 dpi (see the type's discussion), read from
    /// the root element's `width`, `height` and `viewBox` by the structure
    /// pass: librsvg is not asked, so this stays a cheap header read.
    public func declaredSize(of data: Data) -> PixelSize? {
        guard let scan = data.withUnsafeBytes({ try? SVGStructureScan($0, limits: limits) }), scan.elementCount > 0 else { return nil }
        let size: (width: Double, height: Double) =
            if let width = scan.declaredWidth, let height = scan.declaredHeight, width > 0, height > 0 { (width, height) }
            else { scan.viewBoxSize ?? (300, 150) }
        return PixelSize(width: Self.side(size.width), height: Self.side(size.height))
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
