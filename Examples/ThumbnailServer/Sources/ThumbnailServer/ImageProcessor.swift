import AsyncWebImage
import Foundation

/// The geometry of an imgproxy-style request: which region of the source is
/// kept and the size it is scaled to. Images are never enlarged (imgproxy's
/// default); a side of 0 keeps the aspect ratio.
struct ResizePlan: Sendable, Equatable {
    /// The source region kept (the whole image unless cropping).
    let crop: PixelRect
    /// The output size.
    let output: PixelSize

    /// The plan for a `source`-sized image; the crop's position is decided by
    /// `place`, given the crop's size and the scale from source to output
    /// (gravity and its offsets); it is clamped to the image.
    static func make(
        source: PixelSize, type: ProcessingRequest.ResizingType, width: Int, height: Int,
        place: (_ crop: PixelSize, _ scale: Double) -> (x: Int, y: Int)
    ) -> ResizePlan {
        let (w, h) = (Double(source.width), Double(source.height))
        let (tw, th) = (Double(width), Double(height))
        let whole = PixelRect(x: 0, y: 0, width: source.width, height: source.height)
        func side(_ value: Double) -> Int { max(1, Int(value.rounded())) }
        var type = type
        if type == .auto {
            // Same orientation (both landscape or both portrait): fill; else fit.
            type = tw == 0 || th == 0 ? .fit : ((w >= h) == (tw >= th) ? .fill : .fit)
        }
        if (type == .fill || type == .fillDown) && (tw == 0 || th == 0) { type = .fit }
        switch type {
        case .force:
            var xScale = tw / w, yScale = th / h
            if tw == 0 { xScale = th == 0 ? 1 : yScale }
            if th == 0 { yScale = xScale }
            return ResizePlan(crop: whole, output: PixelSize(width: side(w * min(xScale, 1)), height: side(h * min(yScale, 1))))
        case .fill, .fillDown:
            let cover = max(tw / w, th / h)
            let cropSize: PixelSize
            let output: PixelSize
            let scale: Double
            if cover > 1 && type == .fillDown {
                // Too small to fill the box: keep the box's aspect ratio at scale 1.
                cropSize = PixelSize(width: min(source.width, side(tw / cover)), height: min(source.height, side(th / cover)))
                output = cropSize
                scale = 1
            } else {
                scale = min(cover, 1)
                cropSize = PixelSize(width: min(source.width, side(tw / scale)), height: min(source.height, side(th / scale)))
                output = PixelSize(width: min(width, side(w * scale)), height: min(height, side(h * scale)))
            }
            let origin = place(cropSize, scale)
            let x = min(max(0, origin.x), source.width - cropSize.width)
            let y = min(max(0, origin.y), source.height - cropSize.height)
            return ResizePlan(crop: PixelRect(x: x, y: y, width: cropSize.width, height: cropSize.height), output: output)
        case .fit, .auto:
            var scale = 1.0
            if tw > 0 && th > 0 { scale = min(tw / w, th / h) } else if tw > 0 { scale = tw / w } else if th > 0 { scale = th / h }
            scale = min(scale, 1)
            return ResizePlan(crop: whole, output: PixelSize(width: side(w * scale), height: side(h * scale)))
        }
    }
}

/// Applies an imgproxy-style request to decoded pixels: the plan's crop
/// (placed by gravity), then an area-averaging resample to the output size.
enum ImageProcessor {
    /// The processed image.
    ///
    /// - Throws: ``ImageError/transformFailed(key:reason:)`` from the crop or the resize.
    static func process(_ image: Image, _ request: ProcessingRequest) throws -> Image {
        let target = request.targetSize
        let source = image.size
        let plan = ResizePlan.make(source: source, type: request.resizingType, width: target.width, height: target.height) { crop, scale in
            if request.gravity == .smart { return SmartCrop.origin(of: crop, in: image) }
            return origin(of: crop, in: source, gravity: request.gravity, offset: request.gravityOffset, scale: scale, dpr: request.dpr)
        }
        var result = image
        if plan.crop.width != source.width || plan.crop.height != source.height {
            result = try ImageTransformers.Crop(rect: plan.crop).transform(result)
        }
        if result.size != plan.output {
            result = try ImageTransformers.Resize(size: plan.output, mode: .stretch).transform(result)
        }
        return result
    }

    /// Where a crop of size `crop` starts in an image of size `image` for
    /// `gravity` (any but `sm`) moved by `offset`, as imgproxy places it:
    /// the offset moves the crop inwards from the gravity's edges (right
    /// and down on a centred axis), then the crop is clamped to the image.
    ///
    /// - Parameters:
    ///   - scale: Output pixels per pixel of `image` (offsets in pixels are
    ///     the result's).
    ///   - dpr: The request's device pixel ratio (multiplies offsets in pixels).
    static func origin(
        of crop: PixelSize, in image: PixelSize, gravity: ProcessingRequest.Gravity,
        offset: ProcessingRequest.GravityOffset = .init(), scale: Double = 1, dpr: Double = 1
    ) -> (x: Int, y: Int) {
        let freeX = Double(image.width - crop.width), freeY = Double(image.height - crop.height)
        let dx = ProcessingRequest.GravityOffset.pixels(offset.x, side: image.width, scale: scale, dpr: dpr)
        let dy = ProcessingRequest.GravityOffset.pixels(offset.y, side: image.height, scale: scale, dpr: dpr)
        var x = freeX / 2 + dx, y = freeY / 2 + dy
        switch gravity {
        case .center, .smart: break
        case .north: y = dy
        case .south: y = freeY - dy
        case .east: x = freeX - dx
        case .west: x = dx
        case .northEast: (x, y) = (freeX - dx, dy)
        case .northWest: (x, y) = (dx, dy)
        case .southEast: (x, y) = (freeX - dx, freeY - dy)
        case .southWest: (x, y) = (dx, freeY - dy)
        }
        func clamp(_ value: Double, _ free: Double) -> Int { Int(min(max(0, value), max(0, free)).rounded()) }
        return (clamp(x, freeX), clamp(y, freeY))
    }
}

/// Entropy-based smart gravity: the crop window whose pixels, in a small
/// greyscale version of the image, have the most varied histogram
/// (Shannon entropy), so a detailed subject wins over a flat background.
enum SmartCrop {
    /// The long side of the greyscale version analysed.
    static let analysisSide = 96
    /// The most window positions tried per axis.
    static let maxSteps = 32

    static func origin(of crop: PixelSize, in image: Image) -> (x: Int, y: Int) {
        let freeX = image.width - crop.width, freeY = image.height - crop.height
        let centre = (freeX / 2, freeY / 2)
        guard freeX > 0 || freeY > 0 else { return (0, 0) }
        let scale = min(1, Double(analysisSide) / Double(max(image.width, image.height)))
        let small = PixelSize(width: max(1, Int((Double(image.width) * scale).rounded())), height: max(1, Int((Double(image.height) * scale).rounded())))
        guard let grey = greyscale(image, size: small) else { return centre }
        let windowWidth = min(small.width, max(1, Int((Double(crop.width) * scale).rounded())))
        let windowHeight = min(small.height, max(1, Int((Double(crop.height) * scale).rounded())))
        let smallFreeX = small.width - windowWidth, smallFreeY = small.height - windowHeight
        func positions(_ free: Int) -> [Int] {
            guard free > 0 else { return [0] }
            let step = max(1, (free + maxSteps - 1) / maxSteps)
            var values = Array(stride(from: 0, through: free, by: step))
            if values.last != free { values.append(free) }
            return values
        }
        // The centre is the default; another window must be strictly better.
        var best = (x: smallFreeX / 2, y: smallFreeY / 2)
        var bestEntropy = entropy(grey, width: small.width, x: best.x, y: best.y, w: windowWidth, h: windowHeight)
        for y in positions(smallFreeY) {
            for x in positions(smallFreeX) {
                let value = entropy(grey, width: small.width, x: x, y: y, w: windowWidth, h: windowHeight)
                if value > bestEntropy + 1e-9 {
                    bestEntropy = value
                    best = (x, y)
                }
            }
        }
        let x = smallFreeX == 0 ? centre.0 : Int((Double(best.x) / Double(smallFreeX) * Double(freeX)).rounded())
        let y = smallFreeY == 0 ? centre.1 : Int((Double(best.y) / Double(smallFreeY) * Double(freeY)).rounded())
        return (min(max(0, x), freeX), min(max(0, y), freeY))
    }

    /// Luma (BT.601) of `image` scaled to `size` by area averaging.
    static func greyscale(_ image: Image, size: PixelSize) -> [UInt8]? {
        guard let small = try? ImageTransformers.Resize(size: size, mode: .stretch).transform(image) else { return nil }
        let channels = small.pixelFormat.channelCount
        var grey = [UInt8](repeating: 0, count: small.width * small.height)
        small.withUnsafeBytes { bytes in
            for y in 0..<small.height {
                let row = y * small.bytesPerRow
                for x in 0..<small.width {
                    let p = row + x * channels
                    if channels >= 3 {
                        let luma = (299 * Int(bytes[p]) + 587 * Int(bytes[p + 1]) + 114 * Int(bytes[p + 2])) / 1000
                        grey[y * small.width + x] = UInt8(luma)
                    } else {
                        grey[y * small.width + x] = bytes[p]
                    }
                }
            }
        }
        return grey
    }

    /// Shannon entropy (bits) of the 256-bin histogram of a window.
    static func entropy(_ grey: [UInt8], width: Int, x: Int, y: Int, w: Int, h: Int) -> Double {
        var histogram = [Int](repeating: 0, count: 256)
        for row in y..<(y + h) {
            let start = row * width + x
            for index in start..<(start + w) { histogram[Int(grey[index])] += 1 }
        }
        let total = Double(w * h)
        var sum = 0.0
        for count in histogram where count > 0 {
            let p = Double(count) / total
            sum -= p * log2(p)
        }
        return sum
    }
}
