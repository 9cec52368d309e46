import DequeModule

/// Tasks waiting, first in first out, for room that an owner's lock guards
/// (a ``ConcurrencyLimiter``'s permits, a `BodyByteBudget`'s bytes); a
/// waiter that is cancelled leaves at once.
///
/// The owner keeps it inside its locked state and calls it only under that
/// lock. Waiting takes three steps, because a continuation exists only
/// inside `withCheckedThrowingContinuation` and cancellation can come at any
/// moment, even before that: the owner enters a ticket (``enter(_:)``),
/// settles it once the continuation exists (``settle(_:_:roomIsFree:)``),
/// and its cancellation handler calls ``cancel(_:)``, which finds the
/// ticket in any of those states.
struct WaiterQueue {
    typealias Waiter = CheckedContinuation<Void, any Error>

    private enum Ticket {
        /// Entered; the continuation is not registered yet.
        case pending
        /// Registered and waiting in line.
        case waiting(Waiter)
        /// Cancelled before its continuation was registered.
        case cancelled
    }

    /// How ``settle(_:_:roomIsFree:)`` dealt with a ticket.
    enum Settlement {
        /// Cancelled before it was settled: resume with `CancellationError`.
        case cancelled
        /// Room came free since the ticket was entered and nobody is in
        /// line: the owner takes the room, and the waiter goes on at once.
        case served
        /// In line; a release resumes it.
        case queued

        /// Resumes `waiter` unless it stays in line.
        func finish(_ waiter: Waiter) {
            switch self {
            case .cancelled: waiter.resume(throwing: CancellationError())
            case .served: waiter.resume()
            case .queued: break
            }
        }
    }

    /// Tickets not yet served, withdrawn or cancelled in line.
    private var tickets: [UInt64: Ticket] = [:]
    /// Registered tickets in arrival order; tickets of cancelled waiters
    /// stay here until they reach the front, where they are skipped.
    private var line = Deque<UInt64>()
    /// Waiters in line now.
    private(set) var count = 0

    /// Whether nobody is in line (a newcomer may then take free room at
    /// once without overtaking anyone).
    var isEmpty: Bool { count == 0 }

    /// Enters `ticket` (an identifier the owner made unique), pending its continuation.
    mutating func enter(_ ticket: UInt64) {
        tickets[ticket] = .pending
    }

    /// Puts `ticket`'s continuation in line, unless it was cancelled
    /// meanwhile or room came free with nobody in line (`roomIsFree`: the
    /// owner's own test).
    mutating func settle(_ ticket: UInt64, _ waiter: Waiter, roomIsFree: Bool) -> Settlement {
        if case .cancelled = tickets[ticket] {
            tickets.removeValue(forKey: ticket)
            return .cancelled
        }
        if roomIsFree && isEmpty {
            tickets.removeValue(forKey: ticket)
            return .served
        }
        tickets[ticket] = .waiting(waiter)
        count += 1
        line.append(ticket)
        return .queued
    }

    /// For a cancellation handler: the waiter to resume with
    /// `CancellationError` when `ticket` is in line (it leaves the line);
    /// a pending ticket is marked, so that settling it fails; `nil` for a
    /// ticket already served or cancelled.
    mutating func cancel(_ ticket: UInt64) -> Waiter? {
        switch tickets[ticket] {
        case .pending?:
            tickets[ticket] = .cancelled
            return nil
        case .waiting(let waiter)?:
            tickets.removeValue(forKey: ticket)
            count -= 1
            return waiter
        case .cancelled?, nil:
            return nil
        }
    }

    /// The oldest waiter in line and its ticket, taken out of the line.
    mutating func popOldest() -> (ticket: UInt64, waiter: Waiter)? {
        while let ticket = line.popFirst() {
            if case .waiting(let waiter) = tickets[ticket] {
                tickets.removeValue(forKey: ticket)
                count -= 1
                return (ticket, waiter)
            }
        }
        return nil
    }
}
