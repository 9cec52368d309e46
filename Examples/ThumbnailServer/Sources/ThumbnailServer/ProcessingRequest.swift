import AsyncWebImage
import Foundation

/// One validated imgproxy-style request:
/// `/{signature}/{options…}/plain/{percent-encoded source URL}@{ext}` or
/// `/{signature}/{options…}/{base64url source URL, may be split by /}.{ext}`.
///
/// Options are `name:arg:arg`, in any order: `rs`/`resize:%type:%w:%h`,
/// `rt`/`resizing_type:%type`, `s`/`size:%w:%h`, `w`/`width:%w`,
/// `h`/`height:%h`, `g`/`gravity:%type:%x_offset:%y_offset`, `dpr:%ratio`, `q`/`quality:%q`,
/// `f`/`format`/`ext:%ext`. An unknown option is a 400 (not silently
/// ignored: the client would get something else than it asked for).
struct ProcessingRequest: Sendable, Hashable {
    /// How the image meets the width × height box (imgproxy's resizing types).
    enum ResizingType: String, Sendable, Hashable {
        /// Keep the aspect ratio, fit inside the box.
        case fit
        /// Keep the aspect ratio, cover the box, crop the rest (by gravity).
        case fill
        /// As `fill`, but an image smaller than the box is cropped to the
        /// box's aspect ratio rather than returned smaller in one side only.
        case fillDown = "fill-down"
        /// Both sides exactly (up to the source's), aspect ratio ignored.
        case force
        /// `fill` when the source and the box have the same orientation, else `fit`.
        case auto
    }

    /// Which part of the image a crop keeps.
    enum Gravity: String, Sendable, Hashable, CaseIterable {
        case center = "ce", north = "no", south = "so", east = "ea", west = "we"
        case northEast = "noea", northWest = "nowe", southEast = "soea", southWest = "sowe"
        /// The window with the highest entropy of a small greyscale version.
        case smart = "sm"
    }

    /// Where a crop moves from the place its gravity gives it.
    struct GravityOffset: Sendable, Hashable {
        var x = 0.0
        var y = 0.0
        /// The largest magnitude accepted: beyond it every crop is clamped
        /// to the image's edge anyway, and the arithmetic stays finite.
        static let maxMagnitude = 100_000.0

        /// How far to move along one axis, in pixels of the image the crop
        /// is cut from: a fraction of its `side`, or pixels of the result
        /// (`dpr` applied) divided by `scale` (result pixels per image pixel).
        static func pixels(_ offset: Double, side: Int, scale: Double, dpr: Double) -> Double {
            abs(offset) >= 1 ? offset * dpr / scale : offset * Double(side)
        }
    }

    /// The source image.
    var url: URL
    var resizingType: ResizingType = .fit
    /// Requested width; 0 keeps the aspect ratio from the height.
    var width = 0
    /// Requested height; 0 keeps the aspect ratio from the width.
    var height = 0
    var gravity: Gravity = .center
    /// The gravity's offsets, imgproxy's meaning: in pixels of the result
    /// (times `dpr`) when at least 1 in magnitude, else a fraction of the
    /// scaled image's side; towards the inside from the gravity's edge
    /// (right and down from the centre). 0 by default; never with `sm`.
    var gravityOffset = GravityOffset()
    /// Device pixel ratio: multiplies width and height.
    var dpr = 1.0
    /// 1–100, or `nil` for the format's default.
    var quality: Int?
    /// The output format from the extension or `f:`, or `nil` to negotiate from `Accept`.
    var format: ImageFormat?

    /// The target width and height in pixels (`dpr` applied, rounded); 0 = unconstrained.
    /// A side that was asked for stays at least 1 pixel: a tiny `dpr` must not
    /// round it to 0, which would mean "unconstrained" — the whole image.
    var targetSize: (width: Int, height: Int) {
        func side(_ requested: Int) -> Int {
            requested == 0 ? 0 : max(1, Int((Double(requested) * dpr).rounded()))
        }
        return (side(width), side(height))
    }

    /// The canonical description of the transform, part of the result-cache key.
    var transformKey: String {
        let target = targetSize
        let key = "\(resizingType.rawValue):\(target.width):\(target.height):\(gravity.rawValue)"
        // Without offsets the key is as before offsets existed (stored results stay valid).
        guard gravityOffset != GravityOffset() else { return key }
        return key + ":\(gravityOffset.x):\(gravityOffset.y)@\(dpr)"
    }

    /// Parses the part of the path after the signature segment (starting with `/`).
    ///
    /// - Throws: ``ThumbnailError/badRequest(_:)`` naming what is wrong.
    init(path: Substring, maxDimension: Int) throws(ThumbnailError) {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        var index = segments.startIndex
        var request = ProcessingRequest(url: URL(string: "http://placeholder")!)
        // Options: every segment with a colon before the source.
        // The Character overloads: Foundation's substring search costs more
        // than the rest of the parse on a result hit.
        while index < segments.endIndex, segments[index] != "plain", segments[index].contains(Character(":")) {
            try request.apply(option: segments[index], maxDimension: maxDimension)
            index += 1
        }
        guard index < segments.endIndex else { throw .badRequest("the source URL is missing") }
        let source: String
        var extensionName: Substring?
        if segments[index] == "plain" {
            var encoded = segments[(index + 1)...].joined(separator: "/")[...]
            if let at = encoded.lastIndex(of: "@") {
                extensionName = encoded[encoded.index(after: at)...]
                encoded = encoded[..<at]
            }
            // Without a `%` there is nothing to decode (and Foundation's
            // decoding, through NSString, was a third of the parse).
            guard let decoded = encoded.contains(Character("%")) ? encoded.removingPercentEncoding : String(encoded) else {
                throw .badRequest("the plain source URL is not percent-encoded properly")
            }
            source = decoded
        } else {
            var encoded = segments[index...].joined()[...]
            if let dot = encoded.lastIndex(of: ".") {
                extensionName = encoded[encoded.index(after: dot)...]
                encoded = encoded[..<dot]
            }
            guard let data = URLSigner.decodeBase64URL(encoded), let text = String(data: data, encoding: .utf8) else {
                throw .badRequest("the source URL is not base64url")
            }
            source = text
        }
        request.url = try SourceURL.parse(source)
        if let extensionName, !extensionName.isEmpty { request.format = try Self.format(named: extensionName) }
        let target = request.targetSize
        guard target.width <= maxDimension, target.height <= maxDimension else {
            throw .badRequest("width and height times dpr must be at most \(maxDimension)")
        }
        self = request
    }

    private init(url: URL) { self.url = url }

    private mutating func apply(option: Substring, maxDimension: Int) throws(ThumbnailError) {
        let parts = option.split(separator: ":", omittingEmptySubsequences: false)
        let name = parts[0]
        let arguments = Array(parts.dropFirst())
        func dimension(_ text: Substring) throws(ThumbnailError) -> Int {
            guard let value = Int(text), (0...maxDimension).contains(value) else {
                throw .badRequest("\(name): a width or height must be a whole number from 0 to \(maxDimension)")
            }
            return value
        }
        func count(_ range: ClosedRange<Int>) throws(ThumbnailError) {
            guard range.contains(arguments.count) else { throw .badRequest("\(name) takes \(range.lowerBound)…\(range.upperBound) arguments") }
        }
        switch name {
        case "rs", "resize":
            try count(1...3)
            // Empty arguments keep their current value, as in imgproxy.
            if !arguments[0].isEmpty { resizingType = try Self.resizingType(arguments[0]) }
            if arguments.count > 1, !arguments[1].isEmpty { width = try dimension(arguments[1]) }
            if arguments.count > 2, !arguments[2].isEmpty { height = try dimension(arguments[2]) }
        case "rt", "resizing_type":
            try count(1...1)
            resizingType = try Self.resizingType(arguments[0])
        case "s", "size":
            try count(1...2)
            if !arguments[0].isEmpty { width = try dimension(arguments[0]) }
            if arguments.count > 1, !arguments[1].isEmpty { height = try dimension(arguments[1]) }
        case "w", "width":
            try count(1...1)
            width = try dimension(arguments[0])
        case "h", "height":
            try count(1...1)
            height = try dimension(arguments[0])
        case "g", "gravity":
            try count(1...3)
            guard let gravity = Gravity(rawValue: String(arguments[0])) else {
                throw .badRequest("gravity must be one of \(Gravity.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            // As imgproxy: smart gravity places the crop itself, so an
            // offset would be silently ignored; refuse it instead.
            if gravity == .smart && arguments.count > 1 { throw .badRequest("gravity sm takes no offsets") }
            func offset(_ text: Substring) throws(ThumbnailError) -> Double {
                guard let value = Double(text), value.isFinite, abs(value) <= GravityOffset.maxMagnitude else {
                    throw .badRequest("gravity offsets must be numbers from -\(Int(GravityOffset.maxMagnitude)) to \(Int(GravityOffset.maxMagnitude))")
                }
                return value
            }
            self.gravity = gravity
            gravityOffset = GravityOffset()
            // Empty arguments keep 0, as in imgproxy.
            if arguments.count > 1, !arguments[1].isEmpty { gravityOffset.x = try offset(arguments[1]) }
            if arguments.count > 2, !arguments[2].isEmpty { gravityOffset.y = try offset(arguments[2]) }
        case "dpr":
            try count(1...1)
            guard let value = Double(arguments[0]), value > 0, value <= 8 else {
                throw .badRequest("dpr must be a number above 0 and at most 8")
            }
            dpr = value
        case "q", "quality":
            try count(1...1)
            guard let value = Int(arguments[0]), (0...100).contains(value) else {
                throw .badRequest("quality must be a whole number from 0 (the default) to 100")
            }
            quality = value == 0 ? nil : value
        case "f", "format", "ext":
            try count(1...1)
            format = try Self.format(named: arguments[0])
        default:
            throw .badRequest("unknown processing option \(name)")
        }
    }

    private static func resizingType(_ text: Substring) throws(ThumbnailError) -> ResizingType {
        guard let type = ResizingType(rawValue: String(text)) else {
            throw .badRequest("resizing type must be fit, fill, fill-down, force or auto")
        }
        return type
    }

    /// The output format an extension names.
    static func format(named name: Substring) throws(ThumbnailError) -> ImageFormat {
        switch name.lowercased() {
        case "jpg", "jpeg": .jpeg
        case "png": .png
        case "webp": .webp
        case "avif": .avif
        default: throw .badRequest("output format must be jpg, png, webp or avif")
        }
    }
}
