import Foundation
import Testing
@testable import AsyncWebImage

/// Inputs the libFuzzer targets in `Fuzzing/` found, and what they must
/// produce now (Fuzzing/README.md: "When a target finds something").
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    /// FuzzJPEGDecode, 2026-11-22: a progressive 96×2726 file whose AC scan
    /// of the luma component has an SOS segment of length 72 for one
    /// component (8 expected). libjpeg rejects the file ("Bogus marker
    /// length"); the 1/8-scale thumbnail path dropped that scan unread and
    /// returned a 1×32 thumbnail, so a thumbnail accepted what a full
    /// decode rejects. The marker scanner now checks SOS lengths as libjpeg does.
    @Test("a progressive file with a malformed AC-scan header fails as a thumbnail as it does in full")
    func malformedDroppedScanHeader() throws {
        let data = try fixture("fuzz", "progressive-bad-ac-sos.jpg")
        let coder = JPEGCoder()
        let options = [
            ImageDecodingOptions(maxPixelCount: 4_194_304),
            ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 48, height: 32), maxPixelCount: 4_194_304, applyOrientation: true),
        ]
        for option in options {
            do {
                let image = try coder.decode(data, options: option)
                Issue.record("decoded \(image.size) with \(option)")
            } catch let error as ImageError {
                guard case .undecodable(.jpeg, let message) = error else { throw error }
                #expect(message.contains("Bogus marker length") || message.contains("bad length 72 of an SOS segment"), "\(message)")
            }
        }
    }

    /// FuzzJPEGDecode, 2026-11-22: a progressive 1120×64 file whose last AC
    /// scan (luma, Ss = Se = 51) is a refinement with Ah = 3, Al = 3, which
    /// libjpeg rejects ("Invalid progressive parameters"). The 1/8-scale
    /// thumbnail used to drop that scan unread and succeed; `JPEGScanPruner`
    /// now checks a dropped scan's parameters as libjpeg does and declines,
    /// so the thumbnail fails the same way.
    @Test("a progressive file whose dropped AC scan has invalid progression fails at 1/8 as in a full decode")
    func invalidProgressionInDroppedScan() throws {
        try expectFullAndThumbnailFail("progressive-bad-ac-progression.jpg", with: "Invalid progressive parameters")
    }

    /// FuzzJPEGDecode, 2026-11-22 (second session): a 473-byte progressive
    /// file whose only AC scan (luma, a refinement) names AC Huffman table 0,
    /// which no DHT defines. libjpeg refuses it ("Huffman table 0x00 was not
    /// defined"); the 1/8-scale pruner dropped that scan unread and the rest
    /// decoded, so a thumbnail accepted what a full decode rejects. The marker
    /// scanner now notes which AC tables are defined (and usable by libjpeg's
    /// code-length check) and the pruner declines to drop a scan naming
    /// another.
    @Test("a dropped AC scan naming an undefined Huffman table fails as a thumbnail as it does in full")
    func undefinedTableInDroppedScan() throws {
        try expectFullAndThumbnailFail("progressive-undefined-ac-table.jpg", with: "Huffman table 0x00 was not defined")
    }

    /// FuzzJPEGDecode, 2026-11-22 (second session, after the table check): a
    /// 328-byte progressive file whose only scan is a luma AC scan, with the
    /// luma quantisation table defined only after it. libjpeg latches a
    /// component's table at its first scan and refuses the file
    /// ("Quantization table 0x00 was not defined"); the pruner dropped that
    /// scan, and its replacement scan at the end came after the table, so
    /// the thumbnail decoded. The scanner now notes, per scan, whether its
    /// components' tables were defined by then.
    @Test("a dropped first scan of a component whose quantisation table comes later fails as a thumbnail too")
    func lateQuantizationTable() throws {
        try expectFullAndThumbnailFail("progressive-late-quant-table.jpg", with: "Quantization table 0x00 was not defined")
    }

    /// Decodes the fixture in full and as a 1/8-scale thumbnail, expecting
    /// both to fail with libjpeg's `message`: a thumbnail must refuse what
    /// a full decode refuses.
    private func expectFullAndThumbnailFail(_ name: String, with message: String) throws {
        let data = try fixture("fuzz", name)
        let coder = JPEGCoder()
        for option in [
            ImageDecodingOptions(maxPixelCount: 4_194_304),
            ImageDecodingOptions(thumbnailPixelSize: PixelSize(width: 48, height: 32), maxPixelCount: 4_194_304, applyOrientation: true),
        ] {
            #expect {
                _ = try coder.decode(data, options: option)
            } throws: { error in
                guard case .undecodable(.jpeg, let text) = error as? ImageError else { return false }
                return text.contains(message)
            }
        }
    }
}

/// Findings of the animation targets.
@Suite("Fuzz regressions: animations")
struct AnimationFuzzRegressionTests {
    /// FuzzAPNGDecode, 2026-11-25: an APNG cut off before its first frame's
    /// data, whose acTL promises more frames. The frame decoder was made
    /// (two frames promised) but its info listed one, the placeholder for
    /// the cut frame: an "animation" of one frame, which the protocol says
    /// is a still image (`nil`). Now both count the same way.
    @Test("an APNG cut before any whole frame: no one-frame animation")
    func apngCutBeforeAnyFrame() throws {
        let data = try fixture("fuzz", "apng-one-frame-truncated.png")
        do {
            if let decoder = try PNGCoder().makeAnimatedFrameDecoder(data, options: .init()) {
                #expect(decoder.info.frameCount > 1)
            }
        } catch is ImageError {}
    }
}
