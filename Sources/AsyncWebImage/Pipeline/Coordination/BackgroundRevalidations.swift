import Synchronization
import AWILocking

/// The background revalidations of one loader (`stale-while-revalidate`:
/// the stale entry was served, its refresh runs afterwards). At most one per
/// data key and at most ``limit`` at a time — a burst of stale hits cannot
/// start a burst of transfers — and all are cancelled when the loader goes.
final class BackgroundRevalidations: Sendable {
    /// The most revalidations running at once; more stale hits are served
    /// without starting one (a later hit, once one ends, starts it).
    static let limit = 8

    private let tasks = Lock<[String: Task<Void, Never>]>([:])

    /// Starts `work` for `key` unless one runs for it already or ``limit`` are running.
    ///
    /// - Returns: Whether `work` was started.
    @discardableResult
    func start(key: String, _ work: @escaping @Sendable () async -> Void) -> Bool {
        tasks.withLock { tasks in
            guard tasks[key] == nil, tasks.count < Self.limit else { return false }
            // The task removes itself under the same lock, so it cannot end
            // before it is filed here.
            tasks[key] = Task.detached(priority: .utility) { [self] in
                await work()
                self.tasks.withLock { _ = $0.removeValue(forKey: key) }
            }
            return true
        }
    }

    /// Revalidations running now.
    var count: Int { tasks.withLock { $0.count } }

    /// Cancels every revalidation running.
    func cancelAll() {
        let running = tasks.withLock { tasks in
            defer { tasks.removeAll() }
            return Array(tasks.values)
        }
        for task in running { task.cancel() }
    }
}
