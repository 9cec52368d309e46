import NIOCore
import Synchronization
import AWILocking

extension RedisStore {
    /// Queues a write for its node's next pipelined batch and waits for its
    /// acknowledgement (following a cluster's redirection when there is
    /// one); `false` when it was refused or failed.
    func write(_ command: [[UInt8]], at placement: Placement) async -> Bool {
        guard enter() else {
            counters.update { $0.failedWrites += 1 }
            return false
        }
        defer { leave() }
        guard let node = await node(for: placement, reading: false), let ticket = node.admit() else {
            noteTrouble()
            counters.update { $0.failedWrites += 1 }
            return false
        }
        var reply = await enqueue(command, ticket: ticket, on: node)
        if case .error(let message)? = reply, RedisRedirect(error: message) != nil {
            // The slot moved: this write goes alone, where the cluster says.
            reply = await execute(command, on: node, deadline: .now() + TimeAmount(configuration.commandTimeout))
        }
        let acknowledged = reply == .status("OK")
        counters.update { acknowledged ? ($0.writes += 1) : ($0.failedWrites += 1) }
        return acknowledged
    }

    /// Adds `command` to `node`'s queue and starts a flush when none runs;
    /// resumes with its reply, or `nil` when the queue is full or the batch failed.
    private func enqueue(_ command: [[UInt8]], ticket: RedisNode.Admission, on node: RedisNode) async -> RedisReply? {
        let byteCount = command.reduce(0) { $0 + $1.count }
        let limit = configuration.maxPendingWriteBytes
        let reply = await withUnsafeContinuation { (continuation: UnsafeContinuation<RedisReply?, Never>) in
            let verdict: Bool? = node.state.withLock { state in
                guard state.pendingBytes + byteCount <= limit || state.pendingWrites.isEmpty else { return nil }
                state.pendingWrites.append(RedisNode.PendingWrite(command: command, ticket: ticket, byteCount: byteCount, continuation: continuation))
                state.pendingBytes += byteCount
                guard !state.isFlushing else { return false }
                state.isFlushing = true
                return true
            }
            switch verdict {
            case nil: continuation.resume(returning: nil)
            case true?: Task { await flush(node) }
            case false?: break
            }
        }
        node.state.observeHandOff()
        return reply
    }

    /// Sends every queued write of `node` in one pipeline, resumes their
    /// writers with their replies, and goes on while more arrived meanwhile.
    private func flush(_ node: RedisNode) async {
        // Bounded by the writers: each pass takes everything queued so far,
        // and each pass ends within the command timeout.
        while true {
            let batch: [RedisNode.PendingWrite]? = node.state.withLock { state in
                guard !state.pendingWrites.isEmpty else {
                    state.isFlushing = false
                    return nil
                }
                defer {
                    state.pendingWrites.removeAll()
                    state.pendingBytes = 0
                }
                return state.pendingWrites
            }
            guard let batch else { return }
            counters.update { $0.writeBatches += 1 }
            // The batch goes out under its most recent admission: if the
            // breaker opened after even that one, every write in it was
            // queued behind the failures and fails at once.
            let ticket = RedisNode.Admission(openings: batch.map(\.ticket.openings).max() ?? 0)
            let deadline = NIODeadline.now() + TimeAmount(configuration.commandTimeout)
            let result = await node.send(batch.map(\.command), admitted: ticket, deadline: deadline)
            let replies = try? result.get()
            if replies == nil { noteTrouble() }
            // The edge ThreadSanitizer needs between this task and each
            // resumed writer's `observeHandOff` (see Lock).
            node.state.withLock { _ in }
            for (index, write) in batch.enumerated() {
                write.continuation.resume(returning: replies.flatMap { index < $0.count ? $0[index] : nil })
            }
        }
    }
}
