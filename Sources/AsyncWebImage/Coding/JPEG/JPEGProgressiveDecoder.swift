import Foundation

/// Makes previews of a JPEG download in progress; returned by
/// `JPEGCoder.makeProgressiveDecoder(options:)`.
///
/// Each call scans only the bytes that arrived since the previous call
/// (an incremental marker scanner keeps its place), and decodes only when a
/// preview is worth it:
/// - **Progressive JPEG**: when at least one more scan has fully arrived
///   (its entropy-coded data and the marker after it). The preview decodes
///   the data up to the end of that scan, so every block has at least its
///   DC value: the whole frame is covered, at the quality the scans so far
///   give, never grey at the bottom.
/// - **Sequential (baseline) JPEG**: rows arrive top to bottom, and the
///   entropy-coded bytes received are the measure of rows. A preview is made
///   once 8 KiB of them have arrived, then each time they have doubled since
///   the last preview: the rows shown roughly double each time, and the
///   last preview before the end shows about half of them or more. Rows not yet
///   received are grey. libjpeg processes the whole frame even where data
///   is missing, so every preview costs most of a full decode; doubling
///   bounds a download's previews to log2(size / 8 KiB) (9 for 2 MB).
///
/// At most ``maximumPreviews`` previews are made per download (a hostile
/// progressive file may declare hundreds of scans), none once the EOI
/// marker has arrived (the final decode follows), and each is a real image
/// of the final size, or of the thumbnail size the options ask for, with
/// ``Image/isPreview`` set.
///
/// - Important: a value with its own state: use one per download, feed it
///   the growing data from one task at a time.
struct JPEGProgressiveDecoder: ProgressiveImageDecoding {
    /// The most previews one download gets.
    public static let maximumPreviews = 16

    /// Entropy-coded bytes of a sequential JPEG before its first preview.
    static let sequentialFirstPreview = 8 * 1024

    private let options: ImageDecodingOptions
    private var scanner = JPEGMarkerScanner()
    private var previewedScans = 0
    private var previewedEntropyBytes = 0
    private var previewCount = 0

    /// Creates a decoder for one download.
    ///
    /// - Parameter options: the options of the final decode; previews get
    ///   the same size and orientation handling.
    public init(options: ImageDecodingOptions = .init()) {
        self.options = options
    }

    /// Returns a preview of `data` (all bytes received so far), or `nil`
    /// when nothing new is worth decoding yet.
    ///
    /// If `data` is shorter than what an earlier call saw, the download was
    /// restarted: the decoder starts over.
    /// - Throws: ``ImageError/undecodable(_:_:)`` when the data is not JPEG
    ///   or is damaged beyond decoding; ``ImageError/tooLarge(_:limit:actual:)``
    ///   as soon as the frame header declares too many pixels.
    public mutating func preview(for data: Data) throws -> Image? {
        try data.withUnsafeBytes { bytes throws(ImageError) in try preview(in: bytes) }
    }

    private mutating func preview(in bytes: UnsafeRawBufferPointer) throws(ImageError) -> Image? {
        if bytes.count < scanner.offset { self = JPEGProgressiveDecoder(options: options) }
        try scanner.advance(bytes)
        guard let frame = scanner.frame else { return nil }
        try options.checkPixelLimit(frame.size)
        // As soon as the scans so far exceed the limits: no preview, nor a final decode, will be made.
        try options.checkScanLimits(scans: scanner.completedScans, blocks: scanner.completedScanBlocks)
        guard !scanner.sawEndOfImage, previewCount < Self.maximumPreviews else { return nil }

        let prefixEnd: Int
        if frame.isProgressive {
            guard scanner.completedScans > previewedScans else { return nil }
            previewedScans = scanner.completedScans
            prefixEnd = scanner.completedScansEnd
        } else {
            let received = scanner.entropyBytes(receivedCount: bytes.count)
            guard received >= max(Self.sequentialFirstPreview, 2 * previewedEntropyBytes) else { return nil }
            previewedEntropyBytes = received
            prefixEnd = bytes.count
        }
        previewCount += 1
        return try JPEGCoder.decodeImage(
            UnsafeRawBufferPointer(rebasing: bytes[..<prefixEnd]), options: options, completeness: .partialAllowed
        )
    }
}
