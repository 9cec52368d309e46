import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Makes a directory unwritable for this process, and back.
///
/// As root (CI runs as root), permission bits are not enforced, so the
/// directory is made immutable with `chattr +i` instead, which binds root too.
enum FileFlags {
    static func makeReadOnly(_ path: String) throws {
        if geteuid() == 0 {
            try run("/usr/bin/chattr", ["+i", path])
        } else {
            chmod(path, 0o500)
        }
    }

    static func makeWritable(_ path: String) throws {
        if geteuid() == 0 {
            try run("/usr/bin/chattr", ["-i", path])
        } else {
            chmod(path, 0o700)
        }
    }

    private static func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus != 0 { throw CocoaError(.fileWriteNoPermission) }
    }

    /// The permission bits of `path`.
    static func mode(_ path: String) -> mode_t {
        var info = stat()
        lstat(path, &info)
        return info.st_mode & 0o7777
    }

    /// Sets the access and modification times of `path` (seconds since 1970).
    static func setTimes(_ path: String, access: Double, modification: Double) {
        var times = [timespec(tv_sec: Int(access), tv_nsec: 0), timespec(tv_sec: Int(modification), tv_nsec: 0)]
        utimensat(AT_FDCWD, path, &times, 0)
    }
}
