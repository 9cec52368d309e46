import CCurl
import Foundation
import Synchronization
import AWILocking

/// The state only the loop thread touches: running and waiting transfers,
/// the cookie share, and the loop itself.
final class CurlLoopThread {
    private let loop: CurlMultiLoop
    private let configuration: CurlDataLoader.Configuration
    private var active: [UInt64: CurlTransfer] = [:]
    private var waiting: [UInt64: CurlTransfer] = [:]
    private var queue: PendingQueue
    /// Running transfers per host (with port), for the per-host limit.
    private var perHost: [String: Int] = [:]
    /// curl's cookie store shared by the transfers that handle cookies.
    /// Only this thread uses it, so it needs no lock callbacks.
    private let cookieShare: UnsafeMutableRawPointer?

    init(loop: CurlMultiLoop, configuration: CurlDataLoader.Configuration) {
        self.loop = loop
        self.configuration = configuration
        queue = PendingQueue(order: configuration.executionOrder)
        cookieShare = curl_share_init()
        if let cookieShare { CCurl_share_setopt_long(cookieShare, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_COOKIE.rawValue)) }
    }

    private var multi: UnsafeMutableRawPointer { loop.multi.pointer }

    func run() {
        while handleCommands() {
            startWaiting()
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            collectFinished()
            let wait = checkStalls()
            // Freed slots go to the waiting transfers now rather than after
            // the poll; the commands posted meanwhile are taken first, so a
            // high-priority transfer submitted before a slot freed is not
            // passed over for one queued earlier at a lower priority.
            guard handleCommands() else { break }
            startWaiting()
            curl_multi_poll(multi, nil, 0, wait, nil)
        }
        close()
    }

    /// Takes and handles every posted command; false once shut down.
    private func handleCommands() -> Bool {
        let (commands, shutdown) = loop.inbox.withLock { inbox in
            defer { inbox.commands.removeAll(keepingCapacity: true) }
            return (inbox.commands, inbox.shutdown)
        }
        if shutdown { return false }
        for command in commands { handle(command) }
        return true
    }

    private func handle(_ command: CurlMultiLoop.Command) {
        switch command {
        case .start(let transfer):
            waiting[transfer.id] = transfer
            queue.push(transfer.id, priority: transfer.request.priority, host: transfer.hostKey)
        case .cancel(let id):
            if let transfer = waiting.removeValue(forKey: id) {
                queue.remove(id)
                finish(transfer, throwing: CancellationError())
            } else if let transfer = active.removeValue(forKey: id) {
                // Removing an unfinished transfer makes curl close its
                // connection rather than reuse it mid-response.
                release(transfer)
                finish(transfer, throwing: CancellationError())
            }
        case .setPriority(let id, let priority):
            queue.setPriority(id, priority)
        case .resume(let id):
            if let transfer = active[id], let easy = transfer.easy {
                curl_easy_pause(easy, CURLPAUSE_RECV_CONT)
            }
        }
    }

    private func startWaiting() {
        let perHostLimit = configuration.maxConnectionsPerHost.map { max(1, $0) }
        while active.count < max(1, configuration.maxConcurrentDownloads),
              let id = perHostLimit.map({ limit in queue.pop { perHost[$0, default: 0] < limit } }) ?? queue.pop() {
            guard let transfer = waiting.removeValue(forKey: id) else { continue }
            // Counted from here; `release` uncounts, whichever way the transfer ends.
            perHost[transfer.hostKey, default: 0] += 1
            do {
                let easy = try transfer.makeEasyHandle(cookieShare: cookieShare)
                loop.liveHandles.add(1, ordering: .relaxed)
                active[id] = transfer
                curl_multi_add_handle(multi, easy)
            } catch {
                release(transfer)
                finish(transfer, throwing: error)
            }
        }
    }

    private func collectFinished() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = CCurl_msg_result(message)
            var pointer: UnsafeMutableRawPointer?
            CCurl_easy_getinfo_ptr(easy, CURLINFO_PRIVATE, &pointer)
            guard let pointer else { continue }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(pointer).takeUnretainedValue()
            active[transfer.id] = nil
            let outcome = transfer.outcome(code)
            release(transfer)
            switch outcome {
            case .success: finish(transfer, throwing: nil)
            case .failure(let error): finish(transfer, throwing: error)
            }
        }
    }

    /// Fails the transfers that received nothing for the timeout; returns
    /// how long the loop may sleep before the next stall could happen (ms).
    private func checkStalls() -> Int32 {
        let now = ContinuousClock.now
        var earliest = now + .seconds(1)
        var stalled: [CurlTransfer] = []
        for transfer in active.values {
            guard let deadline = transfer.stallDeadline(now: now) else { continue }
            if deadline <= now {
                stalled.append(transfer)
            } else if deadline < earliest {
                earliest = deadline
            }
        }
        for transfer in stalled {
            active[transfer.id] = nil
            transfer.timeOut()
            let outcome = transfer.outcome(CURLE_OPERATION_TIMEDOUT)
            release(transfer)
            if case .failure(let error) = outcome { finish(transfer, throwing: error) }
        }
        let left = earliest - now
        return Int32(max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1))
    }

    /// Frees a started transfer's handle; called once for each.
    private func release(_ transfer: CurlTransfer) {
        if let count = perHost[transfer.hostKey] {
            perHost[transfer.hostKey] = count > 1 ? count - 1 : nil
        }
        if let easy = transfer.easy {
            curl_multi_remove_handle(multi, easy)
            loop.liveHandles.subtract(1, ordering: .relaxed)
        }
        transfer.releaseEasyHandle()
    }

    private func finish(_ transfer: CurlTransfer, throwing error: (any Error)?) {
        transfer.finish(throwing: error)
        loop.outstanding.subtract(1, ordering: .relaxed)
    }

    /// Cancels everything left, refuses further commands and frees curl's handles.
    private func close() {
        let leftover = loop.inbox.withLock { inbox in
            inbox.closed = true
            defer { inbox.commands = [] }
            return inbox.commands
        }
        for case .start(let transfer) in leftover {
            waiting[transfer.id] = transfer
        }
        for transfer in active.values {
            release(transfer)
            finish(transfer, throwing: CancellationError())
        }
        for transfer in waiting.values { finish(transfer, throwing: CancellationError()) }
        active = [:]
        waiting = [:]
        if let cookieShare { curl_share_cleanup(cookieShare) }
        curl_multi_cleanup(multi)
    }
}
