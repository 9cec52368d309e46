/// Thrown whenever a file is outside the prototype's fast path: the caller is expected
/// to hand the same bytes to libjpeg-turbo, which decides whether they decode, warn or fail.
///
/// The prototype never guesses: anything libjpeg-turbo would treat specially (a warning,
/// a resynchronisation, zero-filled data) is a fallback here, so that whenever both
/// decoders succeed their outputs can be required to be identical.
public struct DCDecodeFallback: Error, Equatable, Sendable, CustomStringConvertible {
    /// Why the fast path refused the file.
    public enum Reason: String, Sendable {
        /// Not a JPEG, or a marker segment that does not parse.
        case malformedHeader
        /// Progressive, lossless, arithmetic-coded, hierarchical or 12-bit.
        case unsupportedProcess
        /// More than one scan, a partial-spectrum scan, or components this path does not map.
        case unsupportedLayout
        /// A Huffman table libjpeg-turbo would reject or that the scan lacks.
        case badHuffmanTable
        /// A quantisation table that is missing or whose DC step is out of the IDCT's range.
        case badQuantTable
        /// The entropy-coded data needed bits past a marker or past the end of the file.
        case truncatedScan
        /// A bit pattern that is no code of the table.
        case badHuffmanCode
        /// A restart marker missing or out of sequence.
        case badRestart
        /// Something other than EOI after the scan.
        case unexpectedTrailer
    }

    /// Why the fast path refused the file.
    public let reason: Reason
    /// The byte offset where the problem was noticed.
    public let offset: Int

    /// Creates a fallback for `reason` noticed at `offset`.
    public init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    /// The reason and offset, for logs.
    public var description: String { "\(reason.rawValue) at byte \(offset)" }
}
