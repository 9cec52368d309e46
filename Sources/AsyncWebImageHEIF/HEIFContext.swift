import CHeif
import AsyncWebImage

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
    /// The handle of the thumbnail ``thumbnail(standingInFor:at:maxPixelCount:)`` chose.
    private var chosenThumbnail: OpaquePointer?

    /// The most embedded thumbnails looked at: phones write one, encoders
    /// rarely more; a hostile file listing thousands costs no more than this.
    static let maxThumbnailsConsidered = 8

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
        if let chosenThumbnail { heif_image_handle_release(chosenThumbnail) }
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

    /// The smallest of the primary image's embedded thumbnails that can stand
    /// in for it when it is shown at `target`, as its item ID and handle, or
    /// `nil` when none can.
    ///
    /// A thumbnail qualifies when, as displayed (after its own transforms),
    /// it covers `target` on both sides (it is only ever shrunk), has fewer
    /// pixels than the primary image, has the primary image's aspect ratio
    /// to within a pixel (so it shows the same picture, not a crop or a
    /// rotation of it), has an alpha plane exactly when the primary image
    /// has one, and declares no more than `maxPixelCount` pixels (displayed
    /// and in its `ispe`). Only the first ``maxThumbnailsConsidered`` are
    /// looked at. Call ``primaryImage()`` first.
    func thumbnail(standingInFor primarySize: PixelSize, at target: PixelSize, maxPixelCount: Int) -> (id: UInt32, handle: OpaquePointer)? {
        guard let primary, primarySize.width > 0, primarySize.height > 0 else { return nil }
        let count = min(Int(heif_image_handle_get_number_of_thumbnails(primary)), Self.maxThumbnailsConsidered)
        guard count > 0 else { return nil }
        var ids = [heif_item_id](repeating: 0, count: count)
        let listed = Int(heif_image_handle_get_list_of_thumbnail_IDs(primary, &ids, Int32(count)))
        let primaryHasAlpha = heif_image_handle_has_alpha_channel(primary) != 0
        var best: (id: UInt32, handle: OpaquePointer, pixels: Int)?
        for id in ids.prefix(max(0, min(listed, count))) {
            var handle: OpaquePointer?
            guard heif_image_handle_get_thumbnail(primary, id, &handle).code == heif_error_Ok, let handle else { continue }
            let size = PixelSize(width: Int(heif_image_handle_get_width(handle)), height: Int(heif_image_handle_get_height(handle)))
            let ispe = PixelSize(width: Int(heif_image_handle_get_ispe_width(handle)), height: Int(heif_image_handle_get_ispe_height(handle)))
            // |h × W − w × H| ≤ min(W, H): each side within a pixel of the
            // primary image scaled to the other side. (Sides are at most
            // libheif's 32,768 limit: the products cannot overflow.)
            let skew = abs(size.height * primarySize.width - size.width * primarySize.height)
            let qualifies = size.width >= target.width && size.height >= target.height
                && size.pixelCount < primarySize.pixelCount && size.pixelCount <= maxPixelCount
                && ispe.pixelCount <= maxPixelCount
                && skew <= min(primarySize.width, primarySize.height)
                && (heif_image_handle_has_alpha_channel(handle) != 0) == primaryHasAlpha
            if qualifies, best.map({ size.pixelCount < $0.pixels }) ?? true {
                if let previous = best { heif_image_handle_release(previous.handle) }
                best = (id, handle, size.pixelCount)
            } else {
                heif_image_handle_release(handle)
            }
        }
        guard let best else { return nil }
        if let chosenThumbnail { heif_image_handle_release(chosenThumbnail) }
        chosenThumbnail = best.handle
        return (best.id, best.handle)
    }

    /// Throws unless `error` is `heif_error_Ok`, with libheif's message.
    static func check(_ error: heif_error) throws(ImageError) {
        guard error.code != heif_error_Ok else { return }
        let message = error.message.map { String(cString: $0) } ?? "error \(error.code.rawValue)"
        throw .undecodable(.heic, message)
    }
}
