import Foundation
import Testing
@testable import AsyncWebImage

/// Decodes hostile `data` in full and as a 100 px thumbnail (each coder's
/// second path), expecting `expected` from both, each within `limit`: the
/// failure must come before any work sized by the declared dimensions.
func expectFastFailure(
    _ coder: some ImageDecoding,
    _ data: Data,
    _ expected: ImageError,
    within limit: Duration = .milliseconds(100).scaled,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    for options in [ImageDecodingOptions(), ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 100, height: 100))] {
        let clock = ContinuousClock()
        let start = clock.now
        let outcome = Result { try coder.decode(data, options: options) }
        let elapsed = clock.now - start
        #expect(throws: expected, sourceLocation: sourceLocation) { try outcome.get() }
        #expect(elapsed < limit, "\(elapsed)", sourceLocation: sourceLocation)
    }
}
