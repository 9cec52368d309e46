import Foundation
#if canImport(Glibc)
import Glibc
#endif
import CXattr

/// The POSIX calls the disk store makes, each checked in one place: a failure
/// becomes ``ImageError/diskIO(path:errno:message:)`` carrying the path,
/// `errno` and `strerror`'s message; `EINTR` is retried.
///
/// - Important: every function blocks; call them only on the disk store's
///   own I/O thread.
enum FileIO {
    /// `UTIME_OMIT` (a macro Swift does not import): leave this timestamp as it is.
    static let timeOmit = (1 << 30) - 2

    /// The error for the current `errno`.
    static func error(_ path: String, _ code: Int32 = errno) -> ImageError {
        .diskIO(path: path, errno: code, message: String(cString: strerror(code)))
    }

    /// Runs `call` until it does not fail with `EINTR`; returns its result or throws.
    @discardableResult
    static func check<Result: BinaryInteger>(_ path: String, _ call: () -> Result) throws(ImageError) -> Result {
        while true {
            let result = call()
            if result >= 0 { return result }
            if errno != EINTR { throw error(path) }
        }
    }

    /// Opens `path`; `nil` when it (or its directory) does not exist.
    /// Read-only opens ask for `O_NOATIME` (dropped where the file has
    /// another owner): the store keeps access times itself.
    ///
    /// Read-only opens are also `O_NONBLOCK`: opening a FIFO (or a device)
    /// planted at an entry's name would otherwise wait for a writer that
    /// never comes, holding the store's only I/O thread, and shutdown with
    /// it. On a regular file the flag changes nothing; callers refuse what
    /// `fstat` does not call a regular file before reading.
    static func openIfPresent(_ path: String, _ flags: Int32) throws(ImageError) -> Int32? {
        var flags = flags | O_CLOEXEC
        if flags & O_ACCMODE == O_RDONLY { flags |= awi_o_noatime() | O_NONBLOCK }
        while true {
            let fd = open(path, flags)
            if fd >= 0 { return fd }
            switch errno {
            case EINTR: continue
            case EPERM where flags & awi_o_noatime() != 0:
                flags &= ~awi_o_noatime()
                continue
            case ENOENT, ENOTDIR: return nil
            default: throw error(path)
            }
        }
    }

    /// Outcome of ``openIfCached(_:)``.
    enum CachedOpen {
        case opened(Int32)
        /// The file does not exist (the kernel knew without I/O).
        case absent
        /// Opening would need I/O, or the kernel cannot tell (older than 5.12).
        case wouldBlock
    }

    /// Opens `path` read-only without blocking: only when the kernel can
    /// resolve every component from its lookup cache (`RESOLVE_CACHED`).
    /// Safe to call on the cooperative thread pool.
    static func openIfCached(_ path: String) -> CachedOpen {
        while true {
            let fd = awi_open_if_cached(path)
            if fd >= 0 { return .opened(fd) }
            switch errno {
            case EINTR: continue
            case ENOENT, ENOTDIR: return .absent
            default: return .wouldBlock
            }
        }
    }

    /// Whether this kernel opens with `RESOLVE_CACHED` (Linux 5.12 and
    /// later): the disk store's reads on the caller's thread need it.
    static let supportsCachedOpen: Bool = {
        let fd = awi_open_if_cached("/")
        if fd >= 0 { close(fd); return true }
        return errno != ENOSYS && errno != EINVAL
    }()

    /// Reads exactly `count` bytes at `offset` from the page cache without
    /// blocking (`RWF_NOWAIT`); `false` when any of them is not cached (or
    /// the file is shorter). Safe to call on the cooperative thread pool.
    static func readIfCached(_ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int, offset: Int) -> Bool {
        var done = 0
        while done < count {
            let result = awi_pread_nowait(fd, buffer + done, count - done, off_t(offset + done))
            if result > 0 { done += result; continue }
            if result < 0 && errno == EINTR { continue }
            return false
        }
        return true
    }

    /// Metadata of an open file.
    static func stat(_ fd: Int32, _ path: String) throws(ImageError) -> Glibc.stat {
        var info = Glibc.stat()
        try check(path) { fstat(fd, &info) }
        return info
    }

    /// Metadata of `path` (not following a symbolic link); `nil` when absent.
    static func statIfPresent(_ path: String) throws(ImageError) -> Glibc.stat? {
        var info = Glibc.stat()
        if lstat(path, &info) == 0 { return info }
        if errno == ENOENT || errno == ENOTDIR { return nil }
        throw error(path)
    }

    /// Reads exactly `count` bytes at `offset` into `buffer`; returns how many
    /// it got before end of file (fewer than `count` only for a short file).
    static func read(_ fd: Int32, _ path: String, into buffer: UnsafeMutableRawPointer, count: Int, offset: Int) throws(ImageError) -> Int {
        var done = 0
        while done < count {
            let result = pread(fd, buffer + done, count - done, off_t(offset + done))
            if result > 0 { done += result; continue }
            if result == 0 { break }
            if errno != EINTR { throw error(path) }
        }
        return done
    }

    /// Writes all of `bytes`.
    static func write(_ fd: Int32, _ path: String, _ bytes: UnsafeRawBufferPointer) throws(ImageError) {
        var done = 0
        while done < bytes.count {
            let result = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
            if result > 0 { done += result; continue }
            if result < 0 && errno == EINTR { continue }
            // write(2) returning 0 for a non-empty buffer only happens on a full device.
            throw error(path, result == 0 ? ENOSPC : errno)
        }
    }

    /// Removes `path`; an absent file is not an error. Returns whether it removed something.
    @discardableResult
    static func unlinkIfPresent(_ path: String) throws(ImageError) -> Bool {
        if unlink(path) == 0 { return true }
        if errno == ENOENT || errno == ENOTDIR { return false }
        throw error(path)
    }

    /// Creates `path` and its missing parents with mode 0700; an existing
    /// directory is left as it is.
    ///
    /// Each parent is created at most once, and `path` is tried once more
    /// after its parents exist; a file system where `mkdir` still reports
    /// `ENOENT` then (`/proc`, a directory removed meanwhile) gets that error
    /// instead of another round. The depth is bounded by the components of `path`.
    static func createDirectory(_ path: String) throws(ImageError) {
        try createDirectory(path, creatingParents: true)
    }

    private static func createDirectory(_ path: String, creatingParents: Bool) throws(ImageError) {
        if mkdir(path, 0o700) == 0 {
            // The umask may have taken bits away; the store wants exactly 0700.
            chmod(path, 0o700)
            return
        }
        switch errno {
        case EEXIST:
            var info = Glibc.stat()
            guard fstatat(AT_FDCWD, path, &info, 0) == 0 else { throw error(path) }
            if info.st_mode & S_IFMT != S_IFDIR { throw error(path, ENOTDIR) }
        case ENOENT where creatingParents:
            let parent = (path as NSString).deletingLastPathComponent
            // Strictly shorter each step, so the chain of parents ends.
            guard !parent.isEmpty, parent.count < path.count else { throw error(path) }
            try createDirectory(parent, creatingParents: true)
            try createDirectory(path, creatingParents: false)
        default:
            throw error(path)
        }
    }

    /// Sets access and modification times of an open file (seconds since 1970;
    /// `nil` leaves that time unchanged).
    static func setTimes(_ fd: Int32, _ path: String, access: Double?, modification: Double?) throws(ImageError) {
        func spec(_ seconds: Double?) -> timespec {
            guard let seconds else { return timespec(tv_sec: 0, tv_nsec: timeOmit) }
            let whole = seconds.rounded(.down)
            return timespec(tv_sec: Int(whole), tv_nsec: Int((seconds - whole) * 1e9))
        }
        var times = [spec(access), spec(modification)]
        try check(path) { futimens(fd, &times) }
    }

    /// The names in directory `path`, without `.` and `..`; `nil` when the directory does not exist.
    static func directoryEntries(_ path: String) throws(ImageError) -> [String]? {
        guard let directory = opendir(path) else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw error(path)
        }
        defer { closedir(directory) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { throw error(path) }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
    }

    // MARK: Extended attributes

    /// Outcome of reading an extended attribute.
    enum AttributeRead {
        case value(Data)
        /// The file has no such attribute.
        case absent
        /// The file system does not do (user) extended attributes.
        case unsupported
    }

    /// Whether `code` means "extended attributes are refused here" (so a
    /// sidecar file should be used) rather than a real failure.
    static func isAttributeRefusal(_ code: Int32) -> Bool {
        code == ENOTSUP || code == EOPNOTSUPP || code == EPERM || code == E2BIG || code == ERANGE || code == ENOSPC
    }

    /// Reads attribute `name` of an open file.
    static func attribute(_ fd: Int32, _ path: String, name: String) throws(ImageError) -> AttributeRead {
        for _ in 0..<4 {
            let size = fgetxattr(fd, name, nil, 0)
            if size < 0 {
                if errno == ENODATA { return .absent }
                if isAttributeRefusal(errno) { return .unsupported }
                throw error(path)
            }
            var data = Data(count: size)
            let read = data.withUnsafeMutableBytes { fgetxattr(fd, name, $0.baseAddress, size) }
            if read >= 0 { data.count = read; return .value(data) }
            if errno == ERANGE { continue } // grew between the two calls
            if errno == ENODATA { return .absent }
            throw error(path)
        }
        throw error(path, ERANGE)
    }

    /// Sets attribute `name` of an open file; returns `false` when the file
    /// system refuses extended attributes (or this one's size).
    static func setAttribute(_ fd: Int32, _ path: String, name: String, value: Data) throws(ImageError) -> Bool {
        let result = value.withUnsafeBytes { fsetxattr(fd, name, $0.baseAddress, $0.count, 0) }
        if result == 0 { return true }
        if isAttributeRefusal(errno) { return false }
        throw error(path)
    }

    /// Removes attribute `name` of an open file; absent or unsupported is fine.
    static func removeAttribute(_ fd: Int32, _ path: String, name: String) throws(ImageError) {
        if fremovexattr(fd, name) == 0 || errno == ENODATA || isAttributeRefusal(errno) { return }
        throw error(path)
    }
}
