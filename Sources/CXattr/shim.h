#ifndef CXATTR_SHIM_H
#define CXATTR_SHIM_H
// Linux file calls that Swift's Glibc module does not import: extended
// attributes, and the non-blocking open and read of the disk store's
// page-cache fast path.
#include <sys/types.h>
#include <sys/xattr.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <linux/openat2.h>

#ifndef RESOLVE_CACHED
#define RESOLVE_CACHED 0x20
#endif
#ifndef O_NOATIME
#define O_NOATIME 01000000
#endif

/// O_NOATIME (hidden behind _GNU_SOURCE): reads leave the access time to
/// the disk store, which keeps it itself; the kernel's relatime updates
/// would both move it and dirty the inode on a read.
static inline int awi_o_noatime(void) { return O_NOATIME; }

/// Opens `path` read-only only if every path component is in the kernel's
/// lookup cache: -1 with errno EAGAIN when the lookup would need I/O
/// (ENOSYS or EINVAL on kernels before 5.12, ENOENT when absent).
/// O_NONBLOCK: a FIFO planted at the path must not block the opener, which
/// may be a thread of Swift's cooperative pool.
static inline int awi_open_if_cached(const char *path) {
    struct open_how how = {0};
    how.flags = O_RDONLY | O_CLOEXEC | O_NOATIME | O_NONBLOCK;
    how.resolve = RESOLVE_CACHED;
    int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
    if (fd < 0 && errno == EPERM) {
        // O_NOATIME needs the file's owner: another user's shared cache.
        how.flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK;
        fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
    }
    return fd;
}

/// preadv2 with RWF_NOWAIT (raw: glibc declares preadv2 only under
/// _GNU_SOURCE, which the imported headers do not see): reads what the page
/// cache holds, -1 with errno EAGAIN when reading would block. The offset
/// goes whole in the low word and 0 in the high word, as on every 64-bit ABI.
static inline ssize_t awi_pread_nowait(int fd, void *buffer, size_t count, off_t offset) {
    struct iovec vector = { buffer, count };
    return (ssize_t)syscall(SYS_preadv2, fd, &vector, 1, (unsigned long)offset, 0UL, 0x00000008 /* RWF_NOWAIT */);
}

#endif
