/// The quantised DC coefficient of every block of every component, in frame order, which
/// is all that reaches the output of a 1/8-scale decode.
public struct DCPlanes: Sendable {
    /// One component's block grid, including the padding blocks of an interleaved MCU.
    public struct Component: Sendable {
        /// Blocks per row of the grid.
        public let blocksWide: Int
        /// Block rows of the grid.
        public let blocksHigh: Int
        /// Samples per row this component has in a 1/8-scale decode, ⌈width·h / (8·hmax)⌉;
        /// grid columns past it are MCU padding, outside the image.
        public let scaledWidth: Int
        /// Rows this component has in a 1/8-scale decode, ⌈height·v / (8·vmax)⌉.
        public let scaledHeight: Int
        /// The DC quantisation step (the first entry of the component's table).
        public let dcQuant: Int32
        /// `blocksWide * blocksHigh` DC coefficients, row-major, as libjpeg stores them (16-bit).
        public var coefficients: [Int16]
    }

    /// Image width in pixels.
    public let width: Int
    /// Image height in pixels.
    public let height: Int
    /// Components in frame (SOF) order.
    public var components: [Component]

    /// The sample libjpeg-turbo's 1x1 inverse DCT produces from a DC coefficient: the
    /// dequantised value descaled by 8, re-centred, and then mapped through libjpeg's
    /// post-IDCT range-limit table, which clamps within ±512 of the centre and wraps
    /// (modulo 1024) beyond it — the wrap matters only for corrupt files.
    @inlinable
    public static func sample(coefficient: Int16, quant: Int32) -> UInt8 {
        let dequantised = Int32(coefficient) &* quant
        let descaled = (dequantised &+ 4) >> 3
        var index = descaled & 1023
        if index >= 512 { index -= 1024 }
        if index < -128 { return 0 }
        if index > 127 { return 255 }
        return UInt8(index + 128)
    }
}
