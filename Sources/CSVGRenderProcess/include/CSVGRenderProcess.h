#ifndef ASYNCWEBIMAGE_CSVGRENDERPROCESS_H
#define ASYNCWEBIMAGE_CSVGRENDERPROCESS_H

// The process side of AsyncWebImageSVG's renders: librsvg 2.54 cannot stop a
// render once it has started, so each runs in a child process the decode can
// kill at its deadline. The child is this same executable, started again
// from /proc/self/exe: a constructor in this file notices the variable
// AWI_SVG_RENDER_WORKER before main runs and serves renders instead, so an
// application linking the SVG product needs no helper binary and no setup.

#include <sys/types.h>

/// Whether this file's code is part of the main executable (not of a shared
/// library loaded into it): only then does /proc/self/exe carry the worker.
int awi_svg_worker_is_in_main_executable(void);

/// Starts /proc/self/exe as a render worker whose descriptor 3 is
/// `socket_fd` (descriptors 0, 1 and 2 on /dev/null, every other closed),
/// with the environment `envp` (NULL-terminated) and default signal
/// dispositions. Returns the child's pid, or -errno.
pid_t awi_svg_spawn_worker(int socket_fd, char *const envp[]);

/// In a worker: its nice value, and limits on its CPU time (`cpu_seconds`
/// more than it has used) and its data segment (`data_bytes` more than it
/// holds now), for one render. 0 leaves a limit as it is. Returns 0 or -errno.
int awi_svg_worker_limit(int nice_value, unsigned long cpu_seconds, unsigned long long data_bytes);

/// An eventfd (close-on-exec, non-blocking), or -errno: the cancellation
/// signal a render's wait polls beside the worker's socket.
int awi_svg_eventfd(void);

/// Signals the eventfd `fd` (makes it readable).
void awi_svg_eventfd_signal(int fd);

/// A pidfd for `pid` (close-on-exec), or -errno where the kernel has none:
/// it names the child even after its pid could be reused.
int awi_svg_pidfd_open(pid_t pid);

/// Sends SIGKILL through `pidfd`; returns 0 or -errno.
int awi_svg_pidfd_kill(int pidfd);

#endif
