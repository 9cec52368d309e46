public import AsyncWebImage
import AsyncWebImageAVIF
import AsyncWebImageBMP
import AsyncWebImageGIF
import AsyncWebImageHEIF
import AsyncWebImageJXL
import AsyncWebImageSVG
import AsyncWebImageTIFF
import AsyncWebImageWebP

extension ImageCoderRegistry {
    /// The core's coders (JPEG, PNG) and every format product's: WebP,
    /// AVIF, GIF, HEIC, JPEG XL, TIFF, BMP, ICO/CUR and SVG, decoding, and
    /// encoding where the format product writes.
    ///
    /// For an application that reads whatever the web serves and does not
    /// mind linking every codec library; one that reads a few formats
    /// registers their coders one by one instead and links only theirs.
    public static let allFormats = ImageCoderRegistry.builtIn
        .adding(HEIFCoder())
        .adding(GIFCoder())
        .adding(AVIFCoder())
        .adding(WebPCoder())
        .adding(JXLCoder())
        .adding(TIFFCoder())
        .adding(BMPCoder())
        .adding(ICOCoder())
        .adding(SVGCoder())
}
