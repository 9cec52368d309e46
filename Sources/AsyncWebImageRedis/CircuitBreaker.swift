/// Whether a remote dependency is worth asking: closed (ask), open (do not
/// ask until a cool-down has passed), half-open (one probe is under way).
///
/// A pure value with no clock of its own: the caller passes the time, so
/// tests drive it with made-up instants. One breaker guards one Redis node;
/// after `failureThreshold` consecutive failures a dead node costs nothing
/// per request until `coolDown` has passed, then one request probes it.
struct CircuitBreaker: Sendable, Equatable {
    /// The breaker's state.
    enum State: Sendable, Equatable {
        /// Requests flow; `failures` in a row so far.
        case closed(failures: Int)
        /// Requests are refused until `until`.
        case open(until: ContinuousClock.Instant)
        /// One probe request is under way; others are refused.
        case halfOpen
    }

    /// Consecutive failures that open the breaker.
    let failureThreshold: Int
    /// How long the breaker stays open before it lets one probe through.
    let coolDown: Duration
    /// The current state.
    private(set) var state: State = .closed(failures: 0)
    /// How many times the breaker has opened (for statistics and tests).
    private(set) var openings = 0

    init(failureThreshold: Int, coolDown: Duration) {
        self.failureThreshold = max(1, failureThreshold)
        self.coolDown = coolDown
    }

    /// Whether a request may go out now; when the cool-down is over this
    /// lets exactly one probe through and refuses the rest until it reports.
    mutating func allowsRequest(now: ContinuousClock.Instant) -> Bool {
        switch state {
        case .closed:
            return true
        case .open(let until):
            guard now >= until else { return false }
            state = .halfOpen
            return true
        case .halfOpen:
            return false
        }
    }

    /// Whether a request let through when the breaker had opened
    /// `admittedAt` times may still go out when its turn comes: not when the
    /// breaker has opened since, so requests queued behind the failures
    /// that opened it cost nothing (else each would wait out its own
    /// timeout against a dead node). The probe a cool-down let through was
    /// admitted after the last opening, so it still goes.
    func stillAllows(admittedAt: Int) -> Bool {
        if case .closed = state { return true }
        return openings == admittedAt
    }

    /// Records a request that worked: the breaker closes.
    mutating func recordSuccess() {
        state = .closed(failures: 0)
    }

    /// Records a request that failed (timeout, connection refused, protocol
    /// error): after the threshold, or a failed probe, the breaker opens.
    mutating func recordFailure(now: ContinuousClock.Instant) {
        switch state {
        case .closed(let failures) where failures + 1 < failureThreshold:
            state = .closed(failures: failures + 1)
        case .closed, .halfOpen:
            state = .open(until: now + coolDown)
            openings += 1
        case .open:
            // A request that was let through before the breaker opened.
            break
        }
    }
}
