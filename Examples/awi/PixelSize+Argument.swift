import ArgumentParser
import AsyncWebImage

extension PixelSize {
    /// Parses `WxH` (both whole numbers from 1 to 65535), for `--thumbnail` and `--resize`.
    static func parse(_ text: String) throws -> PixelSize {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
            (1...65_535).contains(width), (1...65_535).contains(height)
        else {
            throw ValidationError("'\(text)' is not a size WxH with whole numbers from 1 to 65535, such as 256x256")
        }
        return PixelSize(width: width, height: height)
    }
}
