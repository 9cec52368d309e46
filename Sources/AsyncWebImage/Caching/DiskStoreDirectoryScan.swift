import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One listing of a ``DiskStore``'s directory: its entry files, sidecars and
/// leftover temporary files, each with its size and date, as a cleanup pass
/// and the size counts need them. Files the store did not name are ignored.
struct DiskStoreDirectoryScan {
    /// One file of the listing.
    struct File {
        var name: String
        var size: Int
        /// Seconds since 1970: by the configured expiration date for entries,
        /// the modification date for sidecars and temporary files.
        var date: Double
    }

    /// What a file in the directory is, by its name.
    enum FileKind: Equatable {
        case entry
        /// A sidecar of the entry file named by the associated value.
        case sidecar(String)
        case temporary
    }

    var entries: [File] = []
    /// Sidecars by the name of their entry file.
    var sidecars: [String: File] = [:]
    var temporaries: [File] = []

    /// The kind of the file named `name`; `nil` for files the store did not name.
    static func kind(of name: String) -> FileKind? {
        if name.hasPrefix(DiskStore.temporaryPrefix) { return .temporary }
        let utf8 = name.utf8
        guard utf8.count >= 64,
              utf8.prefix(64).allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { return nil }
        if name.hasSuffix(DiskStore.sidecarSuffix) { return .sidecar(String(name.dropLast(DiskStore.sidecarSuffix.count))) }
        return .entry
    }

    /// Lists `directoryPath` (one `lstat` per file); an entry's date is its
    /// access time when `byAccessDate` (never older than its modification),
    /// else its modification time. A missing directory lists as empty.
    ///
    /// - Throws: ``ImageError/diskIO(path:errno:message:)`` when the directory cannot be listed.
    init(directoryPath: String, byAccessDate: Bool) throws {
        guard let names = try FileIO.directoryEntries(directoryPath) else { return }
        for name in names {
            guard let kind = Self.kind(of: name),
                  let info = try? FileIO.statIfPresent(directoryPath + "/" + name),
                  info.st_mode & S_IFMT == S_IFREG else { continue }
            let modified = DiskStore.seconds(info.st_mtim)
            switch kind {
            case .entry:
                let date = byAccessDate ? max(DiskStore.seconds(info.st_atim), modified) : modified
                entries.append(File(name: name, size: Int(info.st_size), date: date))
            case .sidecar(let entryName):
                sidecars[entryName] = File(name: name, size: Int(info.st_size), date: modified)
            case .temporary:
                temporaries.append(File(name: name, size: Int(info.st_size), date: modified))
            }
        }
    }
}
