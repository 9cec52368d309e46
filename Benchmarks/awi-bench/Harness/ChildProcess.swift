import Foundation
import Glibc

/// A child process run to its end, what it writes kept in temporary files
/// rather than pipes: draining a pipe would need a thread blocked in
/// read(2), and the cooperative pool has only one per core.
///
/// Spawned with `posix_spawn` rather than Foundation's `Process`, for two
/// reasons. A child inherits its spawning thread's signal mask, and the
/// cooperative pool's threads block nearly every signal: a child of
/// `Process` started there cannot be stopped with SIGTERM, nor can what it
/// starts (the thumbnail server's load test stops its servers with `kill`;
/// they outlived it). And `Process` reports the end only once every
/// descendant has closed a descriptor it inherited, so a child that leaves
/// a process behind never ends. Here the child gets an empty mask and
/// default signal actions, and its end is its own `waitpid`, on a thread of
/// its own.
struct ChildProcess {
    /// How the child ended and what it wrote.
    struct Outcome {
        /// The exit status (128 + the signal when a signal ended it).
        var status: Int32
        /// Standard output (with standard error too when merged).
        var output: String
        /// Standard error, when not merged into ``output``.
        var errors: String
    }

    /// This benchmark's own executable, which children re-run in a child mode.
    static var ownExecutable: URL { URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath() }

    /// `/usr/bin/env`, to run a tool found on the `PATH`.
    static let env = URL(fileURLWithPath: "/usr/bin/env")

    /// Runs `executable` with `arguments` and waits for it to exit.
    /// - Parameters:
    ///   - mergingErrors: Standard error into the same file as standard
    ///     output (`true` by default); else kept apart in ``Outcome/errors``.
    ///   - environment: The child's environment (`nil`: this process's).
    static func run(
        _ executable: URL, _ arguments: [String], mergingErrors: Bool = true, environment: [String: String]? = nil
    ) async throws -> Outcome {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("awi-bench-child-\(UUID().uuidString)")
        let outURL = base.appendingPathExtension("out")
        let errURL = base.appendingPathExtension("err")
        defer { for url in [outURL, errURL] { try? FileManager.default.removeItem(at: url) } }
        let pid = try spawn(
            executable.path, arguments, output: outURL.path, errors: mergingErrors ? nil : errURL.path,
            environment: (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        )
        let status: Int32 = await withCheckedContinuation { continuation in
            // waitpid blocks: on a thread of its own, never on the cooperative pool.
            Thread.detachNewThread {
                var raw: Int32 = 0
                while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
                let signal = raw & 0x7F
                continuation.resume(returning: signal == 0 ? (raw >> 8) & 0xFF : 128 + signal)
            }
        }
        return Outcome(
            status: status,
            output: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            errors: mergingErrors ? "" : (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
        )
    }

    /// Starts `path` with standard input from /dev/null, standard output to
    /// `output` and standard error to `errors` (or to `output`), an empty
    /// signal mask and default signal actions.
    private static func spawn(_ path: String, _ arguments: [String], output: String, errors: String?, environment: [String]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        if let errors {
            posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        var none = sigset_t()
        var all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard result == 0 else { throw BenchmarkFailure("cannot start \(path): \(String(cString: strerror(result)))") }
        return pid
    }
}
