#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Walks the marker structure of JPEG data that may still be arriving.
///
/// Each call to ``advance(_:stopAtFirstScan:)`` resumes where the previous
/// one stopped, so feeding a download chunk by chunk costs O(total bytes),
/// never a rescan from 0. It reads what the rest of the coder needs without
/// decoding anything: the frame header (size, progressive or not), the EXIF
/// orientation, how many scans are complete, how many entropy-coded bytes
/// have arrived, and whether the end-of-image marker was seen.
///
/// JPEG structure, as far as this scanner is concerned: `SOI`, then
/// segments (`FF xx` + 16-bit length + payload) and standalone markers;
/// each `SOS` segment is followed by entropy-coded data, in which `FF` only
/// appears as `FF 00` (a stuffed byte) or `FF D0`–`FF D7` (restart markers),
/// so the first other marker ends the scan. Bytes between segments that are
/// not a marker are skipped, as libjpeg does (with a warning).
struct JPEGMarkerScanner: Sendable {
    /// Where the scanner is in the structure.
    enum Phase: Sendable, Equatable {
        /// Before the `SOI` marker.
        case start
        /// Between segments, expecting a marker.
        case segments
        /// Inside a scan's entropy-coded data.
        case entropy
        /// After `EOI`: the image is complete.
        case end
    }

    /// What the start-of-frame segment declares.
    struct Frame: Sendable, Equatable {
        /// The SOF marker's second byte (`0xC0` baseline, `0xC2` progressive Huffman, ...).
        var marker: UInt8
        /// Declared width and height.
        var size: PixelSize
        /// The colour components (1 gray, 3 YCbCr/RGB, 4 CMYK/YCCK).
        var components: [Component]

        /// Whether the frame is progressive (`SOF2`, `SOF6`, `SOF10`, `SOF14`).
        var isProgressive: Bool { [0xC2, 0xC6, 0xCA, 0xCE].contains(marker) }

        /// The 8×8 blocks of all components of a complete image, counted as
        /// libjpeg sizes its coefficient arrays: a component sampled h×v,
        /// out of the largest factors hmax×vmax, is ⌈W·h / 8·hmax⌉ blocks
        /// wide and ⌈H·v / 8·vmax⌉ high. The padding of interleaved MCUs is
        /// left out, so every scan of a component codes at least this many.
        var blockCount: Int {
            components.reduce(0) { $0 + blockCount(of: $1) }
        }

        /// The 8×8 blocks of one component, as in ``blockCount``.
        func blockCount(of component: Component) -> Int {
            let maxH = max(1, components.map(\.horizontal).max() ?? 1)
            let maxV = max(1, components.map(\.vertical).max() ?? 1)
            let wide = (size.width * component.horizontal + 8 * maxH - 1) / (8 * maxH)
            let high = (size.height * component.vertical + 8 * maxV - 1) / (8 * maxV)
            return wide * high
        }

        /// The fewest bytes a complete file of this frame can have, or `nil`
        /// when there is no such floor.
        ///
        /// Huffman codes are at least 1 bit long, and every block costs at
        /// least one code: a sequential frame (`SOF0`, `SOF1`) codes each
        /// block's DC difference and then an end-of-block code (or a last
        /// coefficient, itself a code), so 2 bits per block; a progressive
        /// one (`SOF2`) codes each block's DC difference in its first DC
        /// scan, 1 bit per block (AC scans can skip 32767 blocks in one
        /// end-of-band run). Arithmetic coding (`SOF9`...) and lossless
        /// frames have no such floor: a one-colour 8000×8000 arithmetic
        /// JPEG takes 211 bytes.
        var minimumByteCount: Int? {
            switch marker {
            case 0xC0, 0xC1: blockCount / 4
            case 0xC2: blockCount / 8
            default: nil
            }
        }
    }

    /// One component of the frame.
    struct Component: Sendable, Equatable {
        /// The identifier scans refer to it by.
        var id: UInt8
        /// Horizontal sampling factor (1–4).
        var horizontal: Int
        /// Vertical sampling factor (1–4).
        var vertical: Int
        /// The quantisation table it uses (libjpeg takes 0–3).
        var quantizationTable = 0
    }

    /// One complete scan, recorded when the scanner was made with `recordingScans`.
    struct Scan: Sendable, Equatable {
        /// From the SOS marker to the end of the entropy-coded data.
        var range: Range<Int>
        /// The first coefficient the scan carries (0: DC, 1...63: AC).
        var spectralStart: Int
        /// The last coefficient the scan carries.
        var spectralEnd: Int
        /// The successive-approximation bit positions: the previous scan's
        /// (`high`, 0 for a first scan) and this one's (`low`).
        var approximationHigh: Int
        var approximationLow: Int
        /// The components the scan covers, by identifier.
        var componentIDs: [UInt8]
        /// Whether every AC Huffman table an AC scan names was defined
        /// before it and passes libjpeg's check of its code lengths (else
        /// decoding the scan fails: "Huffman table 0x.. was not defined",
        /// "Bogus Huffman table definition"); always true for a DC scan.
        var acTablesUsable: Bool
        /// Whether the frame header came before the scan and the
        /// quantisation table of each of its components was defined by then
        /// (else libjpeg fails on the scan if it is the component's first:
        /// "Quantization table 0x.. was not defined", or "SOS before SOF").
        var quantizationTablesDefined: Bool

        /// Whether libjpeg accepts the scan's parameters in a progressive
        /// frame; when it does not, decoding the scan fails with "Invalid
        /// progressive parameters". libjpeg-turbo's rule
        /// (`start_pass_phuff_decoder`): a DC scan ends at 0; an AC scan has
        /// `Ss ≤ Se ≤ 63` and one component; a refinement (`Ah > 0`) lowers
        /// the bit position by one; `Al ≤ 13`.
        var hasValidProgressiveParameters: Bool {
            if spectralStart == 0 {
                guard spectralEnd == 0 else { return false }
            } else {
                guard spectralStart <= spectralEnd, spectralEnd <= 63, componentIDs.count == 1 else { return false }
            }
            if approximationHigh != 0, approximationLow != approximationHigh - 1 { return false }
            return approximationLow <= 13
        }
    }

    /// Where the scanner is in the structure.
    private(set) var phase = Phase.start
    /// How many bytes have been examined; the next call starts here.
    private(set) var offset = 0
    /// The frame header, once it has arrived.
    private(set) var frame: Frame?
    /// The orientation from the first APP1 Exif segment, once it has arrived.
    private(set) var orientation: Image.Orientation?
    /// Scans whose entropy-coded data has fully arrived (the marker after it has been seen).
    private(set) var completedScans = 0
    /// The offset where the last completed scan's data ends (the next marker starts).
    private(set) var completedScansEnd = 0
    /// Entropy-coded bytes of all completed scans.
    private(set) var completedEntropyBytes = 0
    /// 8×8 blocks coded by all completed scans, each scan counting the
    /// blocks of the components it covers: the measure of entropy-decoding
    /// work that ``ImageDecodingOptions/maxScanBlockCount`` limits.
    private(set) var completedScanBlocks = 0
    /// Blocks the scan being received codes (0 when it came before the frame header).
    private var pendingScanBlocks = 0
    /// Start of the current scan's entropy-coded data while in ``Phase/entropy``.
    private var scanDataStart = 0
    /// Whether complete scans are listed in ``scans``.
    private let recordingScans: Bool
    /// The complete scans, when recording (at most ``maximumRecordedScans``).
    private(set) var scans: [Scan] = []
    /// The scan being received, when recording.
    private var pendingScan: Scan?
    /// The AC Huffman tables defined so far (0–3), when recording: `true`
    /// usable, `false` defined with code lengths libjpeg refuses, `nil` not defined.
    private var acTables: [Bool?] = [nil, nil, nil, nil]
    /// The quantisation tables (0–3) defined so far, when recording.
    private var quantizationTables = [false, false, false, false]
    /// Where the EOI marker starts, once seen.
    private(set) var endOfImageOffset: Int?

    /// More scans than libjpeg accepts (`TJFLAG_LIMITSCANS` stops at 500):
    /// recording stops there, so a hostile file cannot grow the list.
    static let maximumRecordedScans = 1000

    /// Creates a scanner positioned before the first byte.
    ///
    /// - Parameter recordingScans: list every complete scan in ``scans``.
    init(recordingScans: Bool = false) {
        self.recordingScans = recordingScans
    }

    /// Whether ``scans`` lists every scan of the data seen so far.
    var scansAreComplete: Bool { recordingScans && scans.count == completedScans }

    /// Entropy-coded bytes received so far when the data is `count` bytes long,
    /// including the part of a scan still arriving.
    func entropyBytes(receivedCount count: Int) -> Int {
        completedEntropyBytes + (phase == .entropy ? max(0, count - scanDataStart) : 0)
    }

    /// Whether the end-of-image marker has been seen.
    var sawEndOfImage: Bool { phase == .end }

    /// Whether the data seen so far ends inside the entropy-coded data of
    /// a sequential frame's first scan, which covers every component (when
    /// recording): the shape of a one-scan file that lacks only its EOI
    /// marker, whose scan libjpeg can then tell complete or cut short.
    var endsInsideSoleSequentialScan: Bool {
        guard phase == .entropy, completedScans == 0, let frame, !frame.isProgressive, let pendingScan else { return false }
        return pendingScan.componentIDs.count == frame.components.count
    }

    /// Examines the bytes from ``offset`` to the end of `bytes`, which must
    /// extend (not replace) the bytes given before.
    ///
    /// - Parameters:
    ///   - stopAtFirstScan: stop at the first `SOS` (all a header reader needs).
    /// - Throws: ``ImageError/undecodable(_:_:)`` when the data cannot be a
    ///   JPEG: no `SOI` marker, a segment length below 2, or an `SOS`
    ///   segment whose length does not match its component count.
    mutating func advance(_ bytes: UnsafeRawBufferPointer, stopAtFirstScan: Bool = false) throws(ImageError) {
        let count = bytes.count
        while offset < count {
            switch phase {
            case .start:
                guard count >= 2 else { return }
                guard bytes[0] == 0xFF, bytes[1] == 0xD8 else { throw .undecodable(.jpeg, "not JPEG data (no SOI marker)") }
                offset = 2
                phase = .segments
            case .segments:
                guard try readSegment(bytes) else { return }
            case .entropy:
                if stopAtFirstScan { return }
                guard skipEntropyData(bytes) else { return }
            case .end:
                return
            }
        }
    }

    /// Reads one marker segment at ``offset``; `false` when more bytes are needed.
    private mutating func readSegment(_ bytes: UnsafeRawBufferPointer) throws(ImageError) -> Bool {
        let count = bytes.count
        // Skip anything that is not a marker, then fill bytes (FF FF ...).
        var at = offset
        while at < count, bytes[at] != 0xFF { at += 1 }
        while at + 1 < count, bytes[at + 1] == 0xFF { at += 1 }
        offset = at
        guard at + 1 < count else { return false }
        let marker = bytes[at + 1]
        switch marker {
        case 0xD9:
            endOfImageOffset = at
            offset = at + 2
            phase = .end
            return true
        case 0x01, 0xD0...0xD8:
            // Standalone markers carry no length (a stray SOI or RST is ignored).
            offset = at + 2
            return true
        default:
            break
        }
        guard at + 3 < count else { return false }
        let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
        guard length >= 2 else { throw .undecodable(.jpeg, "bad length \(length) of marker 0x\(String(marker, radix: 16))") }
        let payloadStart = at + 4
        let end = at + 2 + length
        guard end <= count else { return false }
        let payload = UnsafeRawBufferPointer(rebasing: bytes[payloadStart..<end])
        switch marker {
        case 0xC0...0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:
            // SOFn: precision, height, width, component count, then per
            // component its identifier, sampling factors and quantisation table.
            if frame == nil, payload.count >= 6 {
                let height = Int(payload[1]) << 8 | Int(payload[2])
                let width = Int(payload[3]) << 8 | Int(payload[4])
                let count = min(Int(payload[5]), (payload.count - 6) / 3)
                let components = (0..<count).map { index in
                    let factors = payload[7 + 3 * index]
                    return Component(
                        id: payload[6 + 3 * index], horizontal: Int(factors >> 4), vertical: Int(factors & 0x0F),
                        quantizationTable: Int(payload[8 + 3 * index])
                    )
                }
                frame = Frame(marker: marker, size: PixelSize(width: width, height: height), components: components)
            }
        case 0xC4:
            if recordingScans { recordHuffmanTables(payload) }
        case 0xDB:
            if recordingScans { recordQuantizationTables(payload) }
        case 0xE1:
            if orientation == nil { orientation = ExifOrientationReader.orientation(inAPP1: payload) }
        case 0xDA:
            // As libjpeg's get_sos: 1 to 4 components and exactly their
            // bytes, else "Bogus marker length". A scan the pruner drops
            // must fail here as it would in libjpeg, or a thumbnail would
            // accept a file a full decode rejects.
            let components = payload.isEmpty ? 0 : Int(payload[0])
            guard (1...4).contains(components), length == 6 + 2 * components else {
                throw .undecodable(.jpeg, "bad length \(length) of an SOS segment with \(components) component(s)")
            }
            phase = .entropy
            scanDataStart = end
            pendingScanBlocks = frame.map { frame in
                (0..<components).reduce(0) { total, index in
                    total + (frame.components.first { $0.id == payload[1 + 2 * index] }.map(frame.blockCount(of:)) ?? 0)
                }
            } ?? 0
            // SOS: component count, (selector, tables) per component, Ss, Se, Ah/Al.
            if recordingScans, payload.count >= 1, payload.count >= 1 + 2 * Int(payload[0]) + 3 {
                let count = Int(payload[0])
                let componentIDs = (0..<count).map { payload[1 + 2 * $0] }
                let approximation = payload[3 + 2 * count]
                // A DC scan names AC tables it never uses.
                let acTablesUsable = payload[1 + 2 * count] == 0 || (0..<count).allSatisfy { index in
                    let table = Int(payload[2 + 2 * index] & 0x0F)
                    return table < acTables.count && acTables[table] == true
                }
                pendingScan = Scan(
                    range: at..<end,
                    spectralStart: Int(payload[1 + 2 * count]),
                    spectralEnd: Int(payload[2 + 2 * count]),
                    approximationHigh: Int(approximation >> 4),
                    approximationLow: Int(approximation & 0x0F),
                    componentIDs: componentIDs,
                    acTablesUsable: acTablesUsable,
                    quantizationTablesDefined: quantizationTablesDefined(forScanOf: componentIDs)
                )
            }
        default:
            break
        }
        offset = end
        return true
    }

    /// Notes the AC tables a DHT segment defines, and whether each passes
    /// the check libjpeg-turbo makes when a scan uses it
    /// (`jpeg_make_d_derived_tbl`: the canonical codes of each length must
    /// fit in that length, the all-ones code excluded). A malformed segment
    /// is left to libjpeg, which refuses it whatever is decoded.
    private mutating func recordHuffmanTables(_ payload: UnsafeRawBufferPointer) {
        var at = 0
        while payload.count - at > 16 {
            let index = Int(payload[at])
            var valueCount = 0
            var code = 0
            var usable = true
            for length in 1...16 {
                let codes = Int(payload[at + length])
                valueCount += codes
                code += codes
                if code >= 1 << length { usable = false }
                code <<= 1
            }
            at += 17
            guard valueCount <= 256, valueCount <= payload.count - at else { return }
            at += valueCount
            if index & 0x10 != 0, index - 0x10 < acTables.count {
                acTables[index - 0x10] = usable
            }
        }
    }

    /// Notes the quantisation tables a DQT segment defines (as libjpeg's
    /// `get_dqt` reads it: 64 one- or two-byte entries per table).
    private mutating func recordQuantizationTables(_ payload: UnsafeRawBufferPointer) {
        var at = 0
        while at < payload.count {
            let index = Int(payload[at] & 0x0F)
            at += 1 + (payload[at] >> 4 == 0 ? 64 : 128)
            guard at <= payload.count else { return }
            if index < quantizationTables.count { quantizationTables[index] = true }
        }
    }

    /// Whether the frame header has come and every component named has a
    /// defined quantisation table, at the scan being read.
    private func quantizationTablesDefined(forScanOf componentIDs: [UInt8]) -> Bool {
        guard let frame else { return false }
        return componentIDs.allSatisfy { id in
            guard let component = frame.components.first(where: { $0.id == id }) else { return false }
            return component.quantizationTable < quantizationTables.count && quantizationTables[component.quantizationTable]
        }
    }

    /// Skips entropy-coded data up to the marker that ends the scan; `false`
    /// when the data ends first (``offset`` then rests on the last byte
    /// that could still start that marker).
    private mutating func skipEntropyData(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        guard let base = bytes.baseAddress else { return false }
        var at = offset
        while at < count {
            // Entropy-coded data is most of a file: find the next 0xFF with
            // memchr (vectorised) rather than a byte loop.
            guard let found = memchr(base + at, 0xFF, count - at) else {
                at = count
                break
            }
            at = UnsafeRawPointer(found) - base
            guard at + 1 < count else { break }
            switch bytes[at + 1] {
            case 0x00, 0xD0...0xD7:
                at += 2 // a stuffed zero or a restart marker: still inside the scan
            case 0xFF:
                at += 1 // fill byte before a marker
            default:
                completedScans += 1
                completedEntropyBytes += at - scanDataStart
                completedScanBlocks += pendingScanBlocks
                pendingScanBlocks = 0
                if var scan = pendingScan, scans.count < Self.maximumRecordedScans {
                    scan.range = scan.range.lowerBound..<at
                    scans.append(scan)
                }
                pendingScan = nil
                completedScansEnd = at
                offset = at
                phase = .segments
                return true
            }
        }
        offset = at
        return false
    }
}
