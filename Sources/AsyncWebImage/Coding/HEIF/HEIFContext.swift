import CHeif

/// Owns one libheif context and its primary image handle for the duration
/// of a single decode.
///
/// A class (not `Sendable`) so that both are released exactly once, on
/// whatever thread used them. The context reads a caller-owned buffer
/// without copying it: the caller keeps that buffer alive and unmoved for
/// as long as the context exists.
final class HEIFContext {
    /// The libheif context.
    let raw: OpaquePointer
    /// The primary image's handle, once ``primaryImage()`` found it.
    private(set) var primary: OpaquePointer?

    /// The largest side libheif accepts while parsing: its own default
    /// (32768), or less when the caller's pixel limit is smaller.
    ///
    /// The decoder checks the primary image's size itself; this limit is
    /// what bounds the items behind it that it never sees (the coded
    /// images of a grid or a cropped primary, each with its own `ispe`).
    static func sideLimit(maxPixelCount: Int) -> Int32 {
        Int32(clamping: min(32_768, max(1, maxPixelCount)))
    }

    /// Reads the boxes of `buffer` (no image data is decoded), with libheif's
    /// per-side limit set from `maxPixelCount`.
    ///
    /// - Throws: ``ImageError/undecodable(_:_:)`` with libheif's message.
    init(reading buffer: UnsafeRawBufferPointer, maxPixelCount: Int) throws(ImageError) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { throw .undecodable(.heic, "no data") }
        guard let raw = heif_context_alloc() else { throw .undecodable(.heic, "libheif could not allocate a context") }
        self.raw = raw
        heif_context_set_maximum_image_size_limit(raw, Self.sideLimit(maxPixelCount: maxPixelCount))
        // The loader decodes one image per core already; tiles (grid images) decode on this thread.
        heif_context_set_max_decoding_threads(raw, 0)
        try Self.check(heif_context_read_from_memory_without_copy(raw, base, buffer.count, nil))
    }

    deinit {
        if let primary { heif_image_handle_release(primary) }
        heif_context_free(raw)
    }

    /// The handle of the file's primary image (never a thumbnail item).
    func primaryImage() throws(ImageError) -> OpaquePointer {
        if let primary { return primary }
        var handle: OpaquePointer?
        try Self.check(heif_context_get_primary_image_handle(raw, &handle))
        guard let handle else { throw .undecodable(.heic, "no primary image") }
        primary = handle
        return handle
    }

    /// Throws unless `error` is `heif_error_Ok`, with libheif's message.
    static func check(_ error: heif_error) throws(ImageError) {
        guard error.code != heif_error_Ok else { return }
        let message = error.message.map { String(cString: $0) } ?? "error \(error.code.rawValue)"
        throw .undecodable(.heic, message)
    }
}
