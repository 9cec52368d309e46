import CHeif
import Foundation
import AsyncWebImageHEIF

/// Direct libheif calls: the HEIC corpus encoder, and the baseline the
/// library's `HEIFCoder` is measured against. Nothing here goes through the library.
enum RawHeif {
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ error: heif_error, _ what: String) {
            description = "\(what): " + (error.message.map { String(cString: $0) } ?? "error \(error.code.rawValue)")
        }
        init(_ what: String) { description = what }
    }

    private static func check(_ error: heif_error, _ what: String) throws {
        guard error.code == heif_error_Ok else { throw Failure(error, what) }
    }

    /// Encodes tightly packed RGB8 pixels as an 8-bit HEIC (x265 at `quality`)
    /// into `path`, with an embedded thumbnail fitted into a
    /// `thumbnailBox`-pixel square as phones write one (iPhones: 512).
    static func encode(rgb: [UInt8], width: Int, height: Int, quality: Int32, thumbnailBox: Int32, to path: String) throws {
        guard let context = heif_context_alloc() else { throw Failure("heif_context_alloc") }
        defer { heif_context_free(context) }
        var image: OpaquePointer?
        try check(heif_image_create(Int32(width), Int32(height), heif_colorspace_RGB, heif_chroma_interleaved_RGB, &image), "heif_image_create")
        guard let image else { throw Failure("no image") }
        defer { heif_image_release(image) }
        try check(heif_image_add_plane(image, heif_channel_interleaved, Int32(width), Int32(height), 8), "heif_image_add_plane")
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane(image, heif_channel_interleaved, &stride) else { throw Failure("no plane") }
        rgb.withUnsafeBufferPointer { source in
            for row in 0..<height {
                (plane + row * Int(stride)).update(from: source.baseAddress! + row * width * 3, count: width * 3)
            }
        }
        var encoder: OpaquePointer?
        try check(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder), "no HEVC encoder")
        guard let encoder else { throw Failure("no encoder") }
        defer { heif_encoder_release(encoder) }
        try check(heif_encoder_set_lossy_quality(encoder, quality), "heif_encoder_set_lossy_quality")
        var handle: OpaquePointer?
        try check(heif_context_encode_image(context, image, encoder, nil, &handle), "heif_context_encode_image")
        guard let handle else { throw Failure("no handle") }
        defer { heif_image_handle_release(handle) }
        var thumbnail: OpaquePointer?
        try check(heif_context_encode_thumbnail(context, image, handle, encoder, nil, thumbnailBox, &thumbnail), "heif_context_encode_thumbnail")
        if let thumbnail { heif_image_handle_release(thumbnail) }
        try check(heif_context_write_to_file(context, path), "heif_context_write_to_file")
    }

    /// Decodes the primary image — or, with `thumbnail`, its first embedded
    /// thumbnail — into a new tightly packed RGB8 buffer, single-threaded,
    /// the way a program calling libheif directly would.
    static func decode(_ data: Data, thumbnail: Bool = false) throws -> (pixels: [UInt8], width: Int, height: Int) {
        guard let context = heif_context_alloc() else { throw Failure("heif_context_alloc") }
        defer { heif_context_free(context) }
        heif_context_set_max_decoding_threads(context, 0)
        return try data.withUnsafeBytes { raw in
            try check(heif_context_read_from_memory_without_copy(context, raw.baseAddress, raw.count, nil), "read")
            var primary: OpaquePointer?
            try check(heif_context_get_primary_image_handle(context, &primary), "primary")
            guard let primary else { throw Failure("no primary") }
            defer { heif_image_handle_release(primary) }
            var chosen = primary
            var thumbnailHandle: OpaquePointer?
            defer { if let thumbnailHandle { heif_image_handle_release(thumbnailHandle) } }
            if thumbnail {
                var id = heif_item_id()
                guard heif_image_handle_get_list_of_thumbnail_IDs(primary, &id, 1) == 1 else { throw Failure("no thumbnail") }
                try check(heif_image_handle_get_thumbnail(primary, id, &thumbnailHandle), "thumbnail")
                guard let thumbnailHandle else { throw Failure("no thumbnail handle") }
                chosen = thumbnailHandle
            }
            var image: OpaquePointer?
            try check(heif_decode_image(chosen, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, nil), "heif_decode_image")
            guard let image else { throw Failure("no image") }
            defer { heif_image_release(image) }
            let width = Int(heif_image_get_width(image, heif_channel_interleaved))
            let height = Int(heif_image_get_height(image, heif_channel_interleaved))
            var stride: Int32 = 0
            guard let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride) else { throw Failure("no plane") }
            let pixels = [UInt8](unsafeUninitializedCapacity: width * height * 3) { buffer, initialized in
                for row in 0..<height {
                    (buffer.baseAddress! + row * width * 3).update(from: plane + row * Int(stride), count: width * 3)
                }
                initialized = buffer.count
            }
            return (pixels, width, height)
        }
    }
}
