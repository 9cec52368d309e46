import CRsvg
import AsyncWebImage

/// librsvg and cairo, the calls that parse and draw a document: what a
/// render worker runs (``SVGRenderWorker``), and what the decode runs
/// itself where no worker can be started.
///
/// A document is parsed from its bytes alone, with no base URL or file:
/// librsvg then loads nothing but `data:` URLs.
enum SVGRasterizer {
    /// A parsed document, freed when the value is released.
    final class Document {
        let handle: OpaquePointer

        fileprivate init(handle: OpaquePointer) {
            self.handle = handle
        }

        deinit {
            g_object_unref(UnsafeMutableRawPointer(handle))
        }

        /// The document's size in pixels at 96 dpi: width and height, else
        /// the viewBox's, else 300×150 (as browsers size an unsized replaced element).
        var intrinsicSize: (width: Double, height: Double) {
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
    }

    /// Parses `bytes`.
    ///
    /// - Throws: ``ImageError/undecodable(_:_:)`` with librsvg's message.
    static func parse(_ bytes: UnsafeRawBufferPointer) throws(ImageError) -> Document {
        var error: UnsafeMutablePointer<CRsvgError>?
        guard let handle = rsvg_handle_new_from_data(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &error) else {
            throw .undecodable(.svg, message(error) ?? "librsvg could not read the document")
        }
        rsvg_handle_set_dpi(handle, 96)
        return Document(handle: handle)
    }

    /// Draws `document` with its viewport stretched to `size`, into `output`
    /// (`size` × 4 bytes): straight RGBA8, un-premultiplied from cairo's
    /// pixels as cairo's own PNG writer does, so rsvg-convert's output matches.
    ///
    /// - Throws: ``ImageError/undecodable(_:_:)`` with librsvg's or cairo's message.
    static func render(_ document: Document, size: PixelSize, into output: UnsafeMutableRawBufferPointer) throws(ImageError) {
        guard let surface = cairo_image_surface_create(CRSVG_CAIRO_FORMAT_ARGB32, Int32(size.width), Int32(size.height)),
              cairo_surface_status(surface) == 0
        else { throw .undecodable(.svg, "cairo could not allocate a \(size.width)×\(size.height) surface") }
        defer { cairo_surface_destroy(surface) }
        guard let context = cairo_create(surface) else { throw .undecodable(.svg, "cairo could not make a context") }
        var error: UnsafeMutablePointer<CRsvgError>?
        var viewport = CRsvgRectangle(x: 0, y: 0, width: Double(size.width), height: Double(size.height))
        let drawn = rsvg_handle_render_document(document.handle, context, &viewport, &error)
        cairo_destroy(context)
        guard drawn != 0 else { throw .undecodable(.svg, message(error) ?? "librsvg could not render the document") }
        cairo_surface_flush(surface)
        guard let data = cairo_image_surface_get_data(surface) else { throw .undecodable(.svg, "cairo returned no pixels") }
        let stride = Int(cairo_image_surface_get_stride(surface))
        for y in 0..<size.height {
            let row = UnsafeRawPointer(data + y * stride)
            for x in 0..<size.width {
                // ARGB32 is native-endian: B, G, R, A in memory on little-endian machines.
                let pixel = row.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self)
                let alpha = Int(pixel >> 24)
                let o = (y * size.width + x) * 4
                output[o + 3] = UInt8(alpha)
                guard alpha > 0 else {
                    output[o] = 0
                    output[o + 1] = 0
                    output[o + 2] = 0
                    continue
                }
                output[o] = unpremultiplied(pixel >> 16, alpha)
                output[o + 1] = unpremultiplied(pixel >> 8, alpha)
                output[o + 2] = unpremultiplied(pixel, alpha)
            }
        }
    }

    /// The low byte of `channel`, divided by `alpha` (1…255), rounded.
    private static func unpremultiplied(_ channel: UInt32, _ alpha: Int) -> UInt8 {
        UInt8(min(255, (Int(channel & 0xFF) * 255 + alpha / 2) / alpha))
    }

    /// A GError's message, freeing the error.
    private static func message(_ error: UnsafeMutablePointer<CRsvgError>?) -> String? {
        guard let error else { return nil }
        defer { g_error_free(error) }
        return error.pointee.message.map { String(cString: $0) }
    }
}
