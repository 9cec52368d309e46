import AsyncWebImage
import Foundation

/// One validated `GET /thumbnail` request:
/// `url=…&width=…&height=…&fit=fit|fill|stretch&format=jpeg|png|webp|avif&quality=…`.
///
/// `width` and `height` are required, whole and at most the server's
/// `--max-dimension`; `fit` is `fit` by default, `format` is `jpeg` by
/// default and `quality` (1–100; JPEG, WebP and AVIF) is 80 by default, as
/// in thumbor and imgproxy. Images are never enlarged.
struct ThumbnailRequest: Sendable, Hashable {
    /// The upstream image.
    let url: URL
    /// The box the thumbnail is made for.
    let size: PixelSize
    /// How the image meets the box.
    let mode: ImageTransformers.Resize.Mode
    /// The format of the answer.
    let format: ImageFormat
    /// JPEG, WebP or AVIF quality, 1–100.
    let quality: Int

    /// The request's parameters in one fixed order: what the thumbnail
    /// depends on besides the upstream bytes (part of the `ETag`).
    var canonicalParameters: String {
        "\(url.absoluteString)|\(size.width)x\(size.height)|\(mode.rawValue)|\(format.rawValue)|\(format == .png ? 0 : quality)"
    }

    /// The parameters this request reads.
    static let parameterNames = ["url", "width", "height", "fit", "format", "quality"]

    /// Validates query parameters.
    ///
    /// A parameter given twice (`width=64&width=4096`) is refused, not
    /// resolved: a cache or filter in front of the server may read the
    /// other occurrence than the one the thumbnail would be made from.
    ///
    /// - Parameters:
    ///   - values: Every value of a query parameter, by name (percent-decoded).
    ///   - maxDimension: The largest width or height allowed.
    /// - Throws: ``ThumbnailError/badRequest(_:)`` naming the first bad parameter.
    init(values: (String) -> [String], maxDimension: Int) throws(ThumbnailError) {
        var single: [String: String] = [:]
        for name in Self.parameterNames {
            let given = values(name)
            guard given.count <= 1 else { throw .badRequest("\(name) is given more than once") }
            single[name] = given.first
        }
        try self.init(parameter: { single[$0] }, maxDimension: maxDimension)
    }

    /// Validates query parameters, each looked up once by `parameter`
    /// (percent-decoded); see ``init(values:maxDimension:)``.
    init(parameter: (String) -> String?, maxDimension: Int) throws(ThumbnailError) {
        guard let text = parameter("url"), !text.isEmpty else { throw .badRequest("url is required") }
        let url = try SourceURL.parse(text)
        func dimension(_ name: String) throws(ThumbnailError) -> Int {
            guard let text = parameter(name) else { throw .badRequest("\(name) is required") }
            guard let value = Int(text), (1...maxDimension).contains(value) else {
                throw .badRequest("\(name) must be a whole number from 1 to \(maxDimension)")
            }
            return value
        }
        let size = PixelSize(width: try dimension("width"), height: try dimension("height"))
        let mode: ImageTransformers.Resize.Mode
        switch parameter("fit") ?? "fit" {
        case "fit": mode = .fit
        case "fill": mode = .fill
        case "stretch": mode = .stretch
        default: throw .badRequest("fit must be fit, fill or stretch")
        }
        let format: ImageFormat
        switch parameter("format") ?? "jpeg" {
        case "jpeg", "jpg": format = .jpeg
        case "png": format = .png
        case "webp": format = .webp
        case "avif": format = .avif
        default: throw .badRequest("format must be jpeg, png, webp or avif")
        }
        var quality = 80
        if let text = parameter("quality") {
            guard let value = Int(text), (1...100).contains(value) else {
                throw .badRequest("quality must be a whole number from 1 to 100")
            }
            quality = value
        }
        self.url = url
        self.size = size
        self.mode = mode
        self.format = format
        self.quality = quality
    }
}
