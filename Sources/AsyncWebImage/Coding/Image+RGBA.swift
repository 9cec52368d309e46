extension Image {
    /// The pixels as 8-bit RGBA, four bytes a pixel, rows top to bottom with
    /// no padding (`width × height × 4` bytes), as stored (``orientation``
    /// not applied): what a texture upload, a canvas or another library takes.
    ///
    /// Gray becomes colour by copying the luma; an image without alpha gets
    /// an opaque one (see ``converted(to:)``).
    public var rgba8Pixels: [UInt8] {
        let rgba = converted(to: .rgba8)
        let rowBytes = width * 4
        if rgba.bytesPerRow == rowBytes, rgba.pixels.count == rowBytes * height { return rgba.pixels }
        return rgba.withUnsafeBytes { source in
            [UInt8](unsafeUninitializedCapacity: rowBytes * height) { buffer, count in
                for row in 0..<height {
                    let from = UnsafeRawBufferPointer(rebasing: source[(row * rgba.bytesPerRow)..<(row * rgba.bytesPerRow + rowBytes)])
                    UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[(row * rowBytes)..<((row + 1) * rowBytes)]))
                        .copyMemory(from: from)
                }
                count = rowBytes * height
            }
        }
    }
}
