import CSpng
import Foundation

extension PNGCoder {
    /// An `iCCP` profile copied where libspng can point at it until the
    /// encode is done (libspng keeps the pointer, not a copy).
    final class ProfileBuffer {
        let bytes: UnsafeMutableRawBufferPointer

        init(_ profile: Data) {
            bytes = .allocate(byteCount: profile.count, alignment: 1)
            bytes.copyBytes(from: profile)
        }

        deinit { bytes.deallocate() }
    }

    /// Declares the image's colour space: its ``Image/iccProfile`` as
    /// `iCCP`, or `sRGB` (perceptual) when it was converted to sRGB at
    /// decode; nothing otherwise (untagged PNGs are read as sRGB anyway).
    ///
    /// - Returns: the buffer the `iCCP` chunk points into, to keep alive
    ///   until the encode is finished.
    static func setColorChunk(for image: Image, context: SpngContext) throws(ImageError) -> ProfileBuffer? {
        if let profile = image.iccProfile, !profile.isEmpty {
            let buffer = ProfileBuffer(profile)
            var iccp = spng_iccp()
            withUnsafeMutableBytes(of: &iccp.profile_name) { name in
                name.copyBytes(from: Array("ICC profile".utf8))
            }
            iccp.profile_len = buffer.bytes.count
            iccp.profile = buffer.bytes.baseAddress?.assumingMemoryBound(to: CChar.self)
            try context.check(spng_set_iccp(context.raw, &iccp))
            return buffer
        }
        if image.colorConversion == .converted {
            try context.check(spng_set_srgb(context.raw, 0))
        }
        return nil
    }
}
