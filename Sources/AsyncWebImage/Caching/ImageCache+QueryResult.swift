public import Foundation

extension ImageCache {
    /// What a query found, and where.
    public struct QueryResult: Sendable {
        /// The image, for a memory hit; `nil` for a hit below memory, which
        /// holds bytes.
        public var image: Image?
        /// The encoded bytes: always for a hit below memory; for a memory
        /// hit only with ``QueryOptions/queryMemoryData`` and when the disk
        /// tier has them.
        public var data: Data?
        /// The entry's extended data, when asked for with
        /// ``QueryOptions/includeExtendedData`` and the entry has some.
        public var extendedData: Data?
        /// The tier that answered: ``ImageSource/memory``, ``ImageSource/disk``
        /// or ``ImageSource/sharedTier``.
        public var source: ImageSource

        /// Creates a result.
        public init(image: Image?, data: Data?, extendedData: Data?, source: ImageSource) {
            self.image = image
            self.data = data
            self.extendedData = extendedData
            self.source = source
        }
    }
}
