/// A rectangle of pixels: `x`, `y` of the top-left corner (0, 0 is the
/// image's top-left pixel), then `width` and `height`.
public struct PixelRect: Sendable, Hashable, CustomStringConvertible {
    /// Column of the left edge.
    public var x: Int
    /// Row of the top edge.
    public var y: Int
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates a rectangle.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The part of `self` inside `0..<width × 0..<height`, or `nil` when
    /// nothing is; never overflows for hostile values.
    func clamped(toWidth bounds: Int, height boundsHeight: Int) -> PixelRect? {
        guard width > 0, height > 0 else { return nil }
        let right = x.addingReportingOverflow(width)
        let bottom = y.addingReportingOverflow(height)
        let x0 = max(0, x), y0 = max(0, y)
        let x1 = right.overflow ? bounds : min(bounds, right.partialValue)
        let y1 = bottom.overflow ? boundsHeight : min(boundsHeight, bottom.partialValue)
        guard x1 > x0, y1 > y0 else { return nil }
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// `(x, y, width×height)`.
    public var description: String { "(\(x), \(y), \(width)×\(height))" }
}
