package import Foundation

extension ColorManager {
    /// CMYK rows of a format outside the core (TIFF) turned into RGB the way
    /// a CMYK JPEG's are: through the file's CMYK ICC profile when it is
    /// usable, else with the naive formula of ``CMYKConverter``.
    package struct CMYKRows {
        let plan: CMYKPlan

        /// What the conversion did, for ``Image/colorConversion`` of the result.
        package var conversion: Image.ColorConversion { plan.conversion }

        /// Converts `width` pixels of CMYK as TIFF stores it (0 no ink,
        /// 255 full ink) into packed RGB.
        package func convert(_ cmyk: UnsafePointer<UInt8>, into rgb: UnsafeMutablePointer<UInt8>, width: Int) {
            // The converter takes Adobe's inverted samples (255 no ink).
            let inverted = [UInt8](unsafeUninitializedCapacity: width * 4) { buffer, count in
                for index in 0..<(width * 4) { buffer[index] = 255 - cmyk[index] }
                count = width * 4
            }
            inverted.withUnsafeBytes { source in
                CMYKConverter.convert(
                    source, to: UnsafeMutableRawBufferPointer(start: rgb, count: width * 3),
                    size: PixelSize(width: width, height: 1), plan: plan
                )
            }
        }
    }

    /// The CMYK conversion for a file carrying `iccProfile` (or none).
    package static func cmykRows(iccProfile: Data?, options: ImageDecodingOptions) -> CMYKRows {
        CMYKRows(plan: cmykPlan(profile: iccProfile.map(EmbeddedColorProfile.icc), options: options))
    }
}
