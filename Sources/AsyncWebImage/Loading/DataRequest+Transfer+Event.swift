public import Foundation

extension DataRequest.Transfer {
    /// What a ``DataLoading`` transfer reports, in order: one ``head(_:)``,
    /// then any number of ``chunk(_:)``; the sequence ends after the last byte.
    public enum Event: Sendable {
        /// The final response head (after redirects), before any body byte.
        case head(HTTPResponseHead)
        /// The next body bytes.
        case chunk(Data)
    }
}
