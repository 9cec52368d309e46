import CRsvg
import Dispatch
import Foundation
import AsyncWebImage

/// One librsvg render on a thread of its own, so that the decode can stop
/// waiting for it after a timeout (librsvg 2.54 has no way to cancel a
/// render in progress; that came in 2.59).
///
/// `@unchecked Sendable`: the job is handed to the render thread whole and
/// the caller does not touch `handle` or `pixels` again until `done` is
/// signalled (the semaphore orders the thread's writes before the caller's
/// reads). After a timeout the caller never reads them; the thread alone
/// finishes the render and frees the handle and surface.
final class SVGRenderJob: @unchecked Sendable {
    private let handle: OpaquePointer
    private let size: PixelSize
    private let viewport: CRsvgRectangle
    private let done = DispatchSemaphore(value: 0)
    /// Straight RGBA8 once rendered, or the failure.
    private var result: Result<[UInt8], ImageError> = .failure(.undecodable(.svg, "not rendered"))

    /// A job that draws `handle` (which it takes over and frees) into
    /// `size`, the document's viewport stretched to `viewport`.
    init(handle: OpaquePointer, size: PixelSize, viewport: CRsvgRectangle) {
        self.handle = handle
        self.size = size
        self.viewport = viewport
    }

    /// Renders on a new thread and waits at most `timeout`.
    ///
    /// - Throws: ``ImageError/timeout(_:)`` when the render takes longer
    ///   (it then finishes in the background, its result dropped);
    ///   ``ImageError/undecodable(_:_:)`` with librsvg's or cairo's message.
    func run(timeout: Duration) throws(ImageError) -> [UInt8] {
        let thread = Thread { [self] in
            result = render()
            g_object_unref(UnsafeMutableRawPointer(handle))
            done.signal()
        }
        thread.name = "awi-svg-render"
        thread.start()
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        guard done.wait(timeout: .now() + .nanoseconds(Int(min(nanoseconds, Double(Int.max / 2))))) == .success else {
            throw .timeout("rendering the SVG took longer than \(timeout)")
        }
        return try result.get()
    }

    /// Draws the document with cairo and un-premultiplies cairo's pixels
    /// (as cairo's own PNG writer does, so rsvg-convert's output matches).
    private func render() -> Result<[UInt8], ImageError> {
        guard let surface = cairo_image_surface_create(CRSVG_CAIRO_FORMAT_ARGB32, Int32(size.width), Int32(size.height)),
              cairo_surface_status(surface) == 0
        else { return .failure(.undecodable(.svg, "cairo could not allocate a \(size.width)×\(size.height) surface")) }
        defer { cairo_surface_destroy(surface) }
        guard let context = cairo_create(surface) else { return .failure(.undecodable(.svg, "cairo could not make a context")) }
        var error: UnsafeMutablePointer<CRsvgError>?
        var viewport = viewport
        let drawn = rsvg_handle_render_document(handle, context, &viewport, &error)
        cairo_destroy(context)
        if drawn == 0 {
            let message = error.flatMap { $0.pointee.message.map { String(cString: $0) } } ?? "librsvg could not render the document"
            if let error { g_error_free(error) }
            return .failure(.undecodable(.svg, message))
        }
        cairo_surface_flush(surface)
        guard let data = cairo_image_surface_get_data(surface) else { return .failure(.undecodable(.svg, "cairo returned no pixels")) }
        let stride = Int(cairo_image_surface_get_stride(surface))
        var rgba = [UInt8](repeating: 0, count: size.pixelCount * 4)
        rgba.withUnsafeMutableBufferPointer { out in
            for y in 0..<size.height {
                let row = UnsafeRawPointer(data + y * stride)
                for x in 0..<size.width {
                    // ARGB32 is native-endian: B, G, R, A in memory on little-endian machines.
                    let pixel = row.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self)
                    let alpha = Int(pixel >> 24)
                    let o = (y * size.width + x) * 4
                    out[o + 3] = UInt8(alpha)
                    guard alpha > 0 else { continue }
                    for (c, shift) in [(0, 16), (1, 8), (2, 0)] as [(Int, UInt32)] {
                        let premultiplied = Int(pixel >> shift & 0xFF)
                        out[o + c] = UInt8(min(255, (premultiplied * 255 + alpha / 2) / alpha))
                    }
                }
            }
        }
        return .success(rgba)
    }
}
