import CCurl
import Foundation
import Synchronization
import AWILocking

/// The thread that drives one curl multi handle, and the inbox through which
/// other threads talk to it.
///
/// Only the loop thread calls curl (except `curl_multi_wakeup`, which curl
/// documents as callable from any thread); everything else posts a
/// ``Command``.
final class CurlMultiLoop: Sendable {
    enum Command {
        case start(CurlTransfer)
        case cancel(UInt64)
        case setPriority(UInt64, DataRequest.Priority)
        case resume(UInt64)
    }

    struct Inbox {
        var commands: [Command] = []
        var shutdown = false
        /// Set by the loop thread before it frees the multi handle; nothing
        /// may wake it after that.
        var closed = false
    }

    /// A curl handle pointer that crosses threads.
    struct Handle: @unchecked Sendable {
        // Safe: only the loop thread uses the handle, except for
        // `curl_multi_wakeup`, which is thread-safe and is only called under
        // the inbox lock while `closed` is false (so never after cleanup).
        let pointer: UnsafeMutableRawPointer
    }

    let inbox = Lock(Inbox())
    /// The loop thread: one job, the loop, which returns at shutdown.
    private let thread = DedicatedThreadPool(name: "awi-curl")
    let multi: Handle
    let outstanding = Atomic<Int>(0)
    let liveHandles = Atomic<Int>(0)
    private let nextID = Atomic<UInt64>(1)

    init(configuration: CurlDataLoader.Configuration) {
        _ = CurlMultiLoop.globalInit
        multi = Handle(pointer: curl_multi_init())
        CCurl_multi_setopt_long(multi.pointer, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX)
        if let perHost = configuration.maxConnectionsPerHost {
            CCurl_multi_setopt_long(multi.pointer, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, perHost))
        }
        // Commands do not go through the thread's job queue: the loop sleeps
        // in `curl_multi_poll`, which only `curl_multi_wakeup` interrupts.
        thread.submit { [self] in CurlLoopThread(loop: self, configuration: configuration).run() }
    }

    /// The loop thread's kernel thread ID while it runs (`/proc/self/task/<id>`), for tests; 0 otherwise.
    var threadID: Int32 { thread.kernelThreadIDs.first ?? 0 }

    /// `curl_global_init` once per process, before the first handle.
    private static let globalInit: Void = {
        curl_global_init(Int(CURL_GLOBAL_ALL))
    }()

    func makeID() -> UInt64 {
        nextID.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// Hands `command` to the loop thread and wakes it if it may be asleep.
    /// After shutdown a `start` is refused: its transfer fails with `CancellationError`.
    func post(_ command: Command) {
        if case .start = command { outstanding.add(1, ordering: .relaxed) }
        let accepted = inbox.withLock { inbox in
            guard !inbox.closed else { return false }
            let wasEmpty = inbox.commands.isEmpty
            inbox.commands.append(command)
            // A non-empty inbox has a wake-up pending already: the loop
            // empties the whole inbox after every wake.
            if wasEmpty { curl_multi_wakeup(multi.pointer) }
            return true
        }
        if !accepted, case .start(let transfer) = command {
            transfer.finish(throwing: ImageError.shutDown)
            outstanding.subtract(1, ordering: .relaxed)
        }
    }

    /// Shuts down (``shutdown()``) and returns once the loop thread has
    /// cancelled every transfer, freed curl's handles and ended.
    func shutdownAndWait() async {
        shutdown()
        await thread.shutdownAndWait()
    }

    /// Asks the loop thread to cancel everything, free the multi handle and end.
    func shutdown() {
        inbox.withLock { inbox in
            guard !inbox.closed else { return }
            inbox.shutdown = true
            curl_multi_wakeup(multi.pointer)
        }
        // The thread ends once the loop, its one job, has returned.
        thread.shutdown()
    }
}
