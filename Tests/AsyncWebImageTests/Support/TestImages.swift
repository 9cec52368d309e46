@testable import AsyncWebImage

/// Images built in memory for cache tests.
enum TestImages {
    /// A `side`×`side` gray image (cost `side * side` bytes) filled with `value`.
    static func gray(side: Int, value: UInt8 = 7) -> Image {
        // The sizes are valid by construction, so this cannot throw.
        try! Image(width: side, height: side, pixelFormat: .gray8, pixels: [UInt8](repeating: value, count: side * side))
    }

    /// An image of exactly `cost` bytes (a 1-pixel-high gray strip).
    static func costing(_ cost: Int, value: UInt8 = 7) -> Image {
        try! Image(width: cost, height: 1, pixelFormat: .gray8, pixels: [UInt8](repeating: value, count: cost))
    }
}
