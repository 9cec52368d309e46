import Foundation
import Testing
@testable import AsyncWebImage

/// Time per decode of the hostile many-scan JPEGs, with the default limits
/// and with the limits lifted (what every decode cost before them). Not a
/// check: it prints figures, and runs only when `AWI_MEASURE_SCANS=1`:
///
///     AWI_MEASURE_SCANS=1 swift test --skip-build --no-parallel --filter JPEGScanLimitMeasurement
@Suite("JPEG scan limit measurement", .enabled(if: ProcessInfo.processInfo.environment["AWI_MEASURE_SCANS"] == "1"))
struct JPEGScanLimitMeasurement {
    @Test("7000×7000 progressive, 499 and 5001 scans: time per decode, limits on and lifted")
    func measure() throws {
        let clock = ContinuousClock()
        for scans in [499, 5001] {
            let file = ManyScanJPEG.make(width: 7000, height: 7000, scans: scans)
            for thumbnail in [nil, 256, 1024] as [Int?] {
                for lifted in [true, false] {
                    var options = ImageDecodingOptions(thumbnailPixelSize: thumbnail.map { PixelSize(width: $0, height: $0) })
                    if lifted { options.maxScanCount = .max; options.maxScanBlockCount = .max }
                    let runs = lifted ? 2 : 20
                    var outcome = ""
                    let start = clock.now
                    for _ in 0..<runs {
                        do { _ = try JPEGCoder().decode(file, options: options); outcome = "decoded" } catch { outcome = "\(error)" }
                    }
                    let each = (clock.now - start) / runs
                    print("MEASURE scans=\(scans) bytes=\(file.count) thumbnail=\(thumbnail.map(String.init) ?? "full") limits=\(lifted ? "lifted" : "default") per-decode=\(each) → \(outcome)")
                }
            }
        }
    }
}
