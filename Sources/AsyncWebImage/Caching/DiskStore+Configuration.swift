extension DiskStore {
    /// Limits and policies of a ``DiskStore``.
    public struct Configuration: Sendable, Hashable {
        // MARK: Expiry

        /// Entries older than this are removed by a cleanup pass; `nil` never
        /// expires anything. 7 days by default.
        public var maxAge: Duration?

        /// Which date ``maxAge`` and the size trim measure. ``ExpirationDate/accessDate``
        /// by default: what is read often stays, whatever its age.
        public var expirationDate: ExpirationDate

        // MARK: Size

        /// When a cleanup pass finds more bytes than this, it removes the
        /// oldest entries until at most half of it remain; `nil` for no limit.
        /// 1 GiB by default. Bytes are file lengths (data plus a 32-byte
        /// trailer per entry, plus sidecar files), not allocated blocks.
        public var maxSize: Int?

        // MARK: Cleanup

        /// Run a cleanup pass in the background when the store is created. `true` by default.
        public var cleansUpAtStart: Bool

        /// Time between background cleanup passes; `nil` for none. 10 minutes
        /// by default. A pass also starts as soon as the bytes written since
        /// the last one may have taken the store over ``maxSize``: a server
        /// runs for months, so a limit enforced once per launch would not be
        /// enforced at all.
        public var cleanupInterval: Duration?

        // MARK: Files

        /// Where extended data is kept. ``ExtendedDataStorage/automatic`` by default.
        public var extendedDataStorage: ExtendedDataStorage

        /// Append the key's URL path extension (`.jpg`, 1 to 8 letters or
        /// digits) to file names, as SDWebImage does, so the files open in
        /// other tools. `true` by default.
        public var usesPathExtension: Bool

        /// Creates a configuration; every value has the default documented on its property.
        ///
        /// - Parameters:
        ///   - maxAge: Age after which entries expire; `nil` for never.
        ///   - expirationDate: The date ``maxAge`` and the trim order use.
        ///   - maxSize: Bytes a cleanup pass trims to half of; `nil` for no limit.
        ///   - cleansUpAtStart: Whether to clean up in the background at creation.
        ///   - cleanupInterval: Time between background cleanups; `nil` for none.
        ///   - extendedDataStorage: Extended attributes or sidecar files.
        ///   - usesPathExtension: Whether file names keep the URL's extension.
        public init(
            maxAge: Duration? = .seconds(7 * 24 * 60 * 60),
            expirationDate: ExpirationDate = .accessDate,
            maxSize: Int? = 1 << 30,
            cleansUpAtStart: Bool = true,
            cleanupInterval: Duration? = .seconds(10 * 60),
            extendedDataStorage: ExtendedDataStorage = .automatic,
            usesPathExtension: Bool = true
        ) {
            self.maxAge = maxAge
            self.expirationDate = expirationDate
            self.maxSize = maxSize
            self.cleansUpAtStart = cleansUpAtStart
            self.cleanupInterval = cleanupInterval
            self.extendedDataStorage = extendedDataStorage
            self.usesPathExtension = usesPathExtension
        }

        /// The date an entry's age is measured from.
        public enum ExpirationDate: Sendable, Hashable {
            /// When the entry was last written.
            case modificationDate
            /// When the entry was last read or written, to the minute. The
            /// store sets the file's access time itself when it reads an entry
            /// whose access time is a minute old or more (`futimens`), so this
            /// does not depend on the file system's `atime` (which `relatime`
            /// and `noatime` mounts update late or never).
            case accessDate
        }

        /// Where extended data lives.
        public enum ExtendedDataStorage: Sendable, Hashable {
            /// In a `user.asyncwebimage.extended` extended attribute of the
            /// entry file, written before the file is renamed into place (so
            /// data and metadata appear together); in a sidecar file where the
            /// file system refuses extended attributes (or one this large).
            case automatic
            /// Always in a sidecar file next to the entry (`<name>.ext-data`).
            case sidecarFile
        }
    }
}
