import Foundation
import DequeModule
import Synchronization
import AWILocking

/// Request identities (``ImageRequestKeys/Origin``: URL and request variant)
/// whose last load failed for a reason retrying cannot fix
/// (``ImageError/isPermanent``). Per identity, so a 403 for one set of
/// credentials never blocks a load with another. Bounded: past ``capacity``
/// the oldest entries are forgotten, so hostile traffic cannot grow it
/// without limit.
final class FailedURLSet: Sendable {
    typealias Member = ImageRequestKeys.Origin

    private struct State {
        var members: [Member: UInt64] = [:]
        var order = Deque<(Member, UInt64)>()
        var generation: UInt64 = 0
    }

    /// The most identities remembered.
    let capacity: Int
    private let state = Lock(State())
    /// Mirrors `members.count` so the common case, an empty list, costs one
    /// atomic load on every load's fast path instead of a lock and a hash.
    /// Relaxed: a URL blocked on another thread a moment ago may still be
    /// let through once, which the list tolerates anyway.
    private let size = Atomic<Int>(0)

    init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    /// Whether `url` is blocked for requests of its variant.
    ///
    /// - Complexity: O(1).
    func contains(_ url: Member) -> Bool {
        guard size.load(ordering: .relaxed) > 0 else { return false }
        return state.withLock { $0.members[url] != nil }
    }

    /// Blocks `url` for requests of its variant.
    ///
    /// - Complexity: amortised O(1).
    func insert(_ url: Member) {
        state.withLock { state in
            state.generation &+= 1
            state.members[url] = state.generation
            state.order.append((url, state.generation))
            // Forget the oldest live entries beyond capacity; stale order
            // entries (removed or re-inserted URLs) are skipped as they surface.
            while state.members.count > capacity, case let (oldest, generation)? = state.order.popFirst() {
                if state.members[oldest] == generation { state.members[oldest] = nil }
            }
            size.store(state.members.count, ordering: .relaxed)
            if state.order.count > 2 * capacity + 64 {
                // Insert/remove churn below capacity leaves stale entries; rebuild.
                state.order = Deque(state.members.map { ($0.key, $0.value) }.sorted { $0.1 < $1.1 })
            }
        }
    }

    /// Unblocks `url` for requests of its variant (after a successful load).
    func remove(_ url: Member) {
        guard size.load(ordering: .relaxed) > 0 else { return }
        state.withLock { state in
            state.members.removeValue(forKey: url)
            size.store(state.members.count, ordering: .relaxed)
        }
    }

    /// Whether `url` is blocked for any variant.
    ///
    /// - Complexity: O(n).
    func containsAnyVariant(of url: String) -> Bool {
        guard size.load(ordering: .relaxed) > 0 else { return false }
        return state.withLock { $0.members.keys.contains { $0.url == url } }
    }

    /// Unblocks `url` for every variant.
    ///
    /// - Complexity: O(n).
    func removeEveryVariant(of url: String) {
        guard size.load(ordering: .relaxed) > 0 else { return }
        state.withLock { state in
            state.members = state.members.filter { $0.key.url != url }
            size.store(state.members.count, ordering: .relaxed)
        }
    }

    /// Unblocks everything.
    func removeAll() {
        state.withLock { state in
            state = State()
            size.store(0, ordering: .relaxed)
        }
    }

    /// How many identities are blocked.
    var count: Int { state.withLock { $0.members.count } }
}
