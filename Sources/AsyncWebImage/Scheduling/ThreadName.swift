import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Names the calling thread as `top -H`, debuggers and `/proc/self/task/*/comm`
/// show it (the kernel keeps 15 bytes). Foundation's `Thread.name` does not
/// reach the kernel here, and `pthread_setname_np` is not imported;
/// `/proc/thread-self/comm` is what it writes. Best effort.
func nameCurrentThread(_ name: String) {
    let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard fd >= 0 else { return }
    let bytes = Array(name.utf8.prefix(15))
    _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    close(fd)
}

/// The calling thread's kernel ID (its entry in `/proc/self/task`), read
/// from the `/proc/thread-self` link (`<pid>/task/<tid>`): `gettid` is not
/// imported without `_GNU_SOURCE`. 0 when it cannot be read.
func currentKernelThreadID() -> Int32 {
    var buffer = [CChar](repeating: 0, count: 64)
    let count = readlink("/proc/thread-self", &buffer, buffer.count - 1)
    guard count > 0 else { return 0 }
    let link = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return link.split(separator: "/").last.flatMap { Int32($0) } ?? 0
}
