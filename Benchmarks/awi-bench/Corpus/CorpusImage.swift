import AsyncWebImage
import Foundation

/// One image file of the corpus, described from its header.
struct CorpusImage: Sendable {
    /// How the file is encoded, beyond its format.
    enum Variant: String, Sendable {
        case baseline, progressive, plain, interlaced
    }

    /// File name inside the corpus folder.
    var name: String
    var path: String
    var format: ImageFormat
    var variant: Variant
    var width: Int
    var height: Int
    /// Encoded size in bytes.
    var byteCount: Int

    var megapixels: Double { Double(width * height) / 1e6 }

    /// "12.0 MP jpeg progressive" style label for the table.
    var label: String {
        let mp = megapixels >= 10 ? String(Int(megapixels.rounded())) : String(format: "%.1f", megapixels)
        return "\(format) \(variant.rawValue) \(mp)MP"
    }
}
