import AsyncWebImage
extension Image.Orientation {
    /// The orientation that displays an image whose HEIF/AVIF item carries
    /// an `irot` rotation of `rotation` × 90° anti-clockwise, then (MIAF's
    /// order) an `imir` mirror: `mirror` 0 exchanges top and bottom, 1 left
    /// and right, `nil` none.
    ///
    /// - Parameters:
    ///   - rotation: the `irot` angle in quarter turns anti-clockwise (taken modulo 4).
    ///   - mirror: the `imir` mode, or `nil` without one.
    init(heifRotation rotation: Int, mirror: Int?) {
        // EXIF names the turn that displays the image: a quarter turn
        // anti-clockwise is EXIF 8 (.left), three quarters EXIF 6 (.right).
        let turns = ((rotation % 4) + 4) % 4
        switch (turns, mirror) {
        case (0, nil): self = .up
        case (1, nil): self = .left
        case (2, nil): self = .down
        case (3, nil): self = .right
        // Mirroring after a half turn swaps which axis is mirrored.
        case (0, 1?), (2, 0?): self = .upMirrored
        case (0, _?), (2, _?): self = .downMirrored
        // After a quarter turn the mirror becomes a diagonal one.
        case (1, 0?), (3, 1?): self = .leftMirrored
        default: self = .rightMirrored
        }
    }

    /// The `irot` quarter turns (anti-clockwise) and `imir` mode (`nil` for
    /// none) that make a HEIF/AVIF reader display the image as this
    /// orientation does; the inverse of ``init(heifRotation:mirror:)``.
    var heifTransforms: (rotation: Int, mirror: Int?) {
        switch self {
        case .up: (0, nil)
        case .upMirrored: (0, 1)
        case .down: (2, nil)
        case .downMirrored: (0, 0)
        case .leftMirrored: (1, 0)
        case .right: (3, nil)
        case .rightMirrored: (1, 1)
        case .left: (1, nil)
        }
    }
}
