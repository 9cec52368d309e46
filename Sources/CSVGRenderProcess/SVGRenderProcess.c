#define _GNU_SOURCE
#include "CSVGRenderProcess.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

/// The worker's loop, in Swift (SVGRenderWorker.swift, `@_cdecl`): reads
/// requests on `fd` until it closes or stays idle, then returns.
extern void awi_svg_render_worker_main(int fd);

/// Before main, in every process of an executable that links the SVG
/// product: nothing unless the variable says this process is a worker. Then
/// it serves renders and exits without running the application's main.
///
/// No PR_SET_PDEATHSIG: it fires when the *thread* that started the child
/// ends, and a worker is reused by other threads. A worker whose parent has
/// gone finds its socket closed when it next reads or writes, and its CPU
/// limit bounds the render it is in until then.
__attribute__((constructor)) static void awi_svg_worker_entry(void) {
    const char *fd = getenv("AWI_SVG_RENDER_WORKER");
    if (fd == NULL) return;
    prctl(PR_SET_NAME, "awi-svg-render", 0, 0, 0);
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    awi_svg_render_worker_main(atoi(fd));
    _exit(0);
}

static int find_self(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    uintptr_t address = (uintptr_t)&awi_svg_worker_entry;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
        if (segment->p_type != PT_LOAD) continue;
        uintptr_t start = info->dlpi_addr + segment->p_vaddr;
        if (address >= start && address < start + segment->p_memsz) {
            // The main program is the first object dl_iterate_phdr reports, with an empty name.
            *(int *)data = info->dlpi_name == NULL || info->dlpi_name[0] == '\0';
            return 1;
        }
    }
    return 0;
}

int awi_svg_worker_is_in_main_executable(void) {
    int in_main = 0;
    dl_iterate_phdr(find_self, &in_main);
    return in_main;
}

pid_t awi_svg_spawn_worker(int socket_fd, char *const envp[]) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int status = posix_spawn_file_actions_init(&actions);
    if (status != 0) return -status;
    status = posix_spawnattr_init(&attributes);
    if (status != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return -status;
    }
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawn_file_actions_adddup2(&actions, socket_fd, 3);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    // Sockets, files and pipes of the application stay out of the worker.
    posix_spawn_file_actions_addclosefrom_np(&actions, 4);
    char *const argv[] = {"awi-svg-render", NULL};
    pid_t pid = 0;
    status = posix_spawn(&pid, "/proc/self/exe", &actions, &attributes, argv, envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    return status == 0 ? pid : -status;
}

int awi_svg_worker_limit(int nice_value, unsigned long cpu_seconds, unsigned long long data_bytes) {
    if (nice_value > 0 && setpriority(PRIO_PROCESS, 0, nice_value) != 0) return -errno;
    if (cpu_seconds > 0) {
        struct rusage usage;
        if (getrusage(RUSAGE_SELF, &usage) != 0) return -errno;
        // RLIMIT_CPU counts the whole process's time: the budget starts from what it has used.
        rlim_t used = (rlim_t)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + 1);
        struct rlimit limit;
        if (getrlimit(RLIMIT_CPU, &limit) != 0) return -errno;
        limit.rlim_cur = used + cpu_seconds;
        if (limit.rlim_max != RLIM_INFINITY && limit.rlim_cur > limit.rlim_max) limit.rlim_cur = limit.rlim_max;
        if (setrlimit(RLIMIT_CPU, &limit) != 0) return -errno;
    }
    if (data_bytes > 0) {
        // /proc/self/statm's sixth field: data and stack pages, what RLIMIT_DATA counts
        // (less the stack). A sanitizer's shadow memory is already in it, so the
        // limit is the budget on top of what the process holds, not an absolute size.
        long pages = 0;
        FILE *statm = fopen("/proc/self/statm", "r");
        if (statm != NULL) {
            long fields[6] = {0};
            if (fscanf(statm, "%ld %ld %ld %ld %ld %ld", &fields[0], &fields[1], &fields[2], &fields[3], &fields[4], &fields[5]) == 6) {
                pages = fields[5];
            }
            fclose(statm);
        }
        struct rlimit limit;
        if (getrlimit(RLIMIT_DATA, &limit) != 0) return -errno;
        rlim_t wanted = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (rlim_t)data_bytes;
        limit.rlim_cur = limit.rlim_max != RLIM_INFINITY && wanted > limit.rlim_max ? limit.rlim_max : wanted;
        if (setrlimit(RLIMIT_DATA, &limit) != 0) return -errno;
    }
    return 0;
}

int awi_svg_eventfd(void) {
    int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    return fd >= 0 ? fd : -errno;
}

void awi_svg_eventfd_signal(int fd) {
    eventfd_write(fd, 1);
}

int awi_svg_pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
    long fd = syscall(SYS_pidfd_open, pid, 0);
    return fd >= 0 ? (int)fd : -errno;
#else
    (void)pid;
    return -ENOSYS;
#endif
}

int awi_svg_pidfd_kill(int pidfd) {
#ifdef SYS_pidfd_send_signal
    return syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0) == 0 ? 0 : -errno;
#else
    (void)pidfd;
    return -ENOSYS;
#endif
}
