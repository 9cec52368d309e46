import Testing
@testable import AsyncWebImageRedis

@Suite("CircuitBreaker")
struct CircuitBreakerTests {
    private let start = ContinuousClock.now

    @Test("opens after the threshold of failures in a row; a success in between resets the count")
    func opens() {
        var breaker = CircuitBreaker(failureThreshold: 3, coolDown: .seconds(5))
        breaker.recordFailure(now: start)
        breaker.recordFailure(now: start)
        breaker.recordSuccess()
        breaker.recordFailure(now: start)
        breaker.recordFailure(now: start)
        let stillClosed = breaker.allowsRequest(now: start)
        #expect(stillClosed)
        breaker.recordFailure(now: start)
        #expect(breaker.state == .open(until: start + .seconds(5)))
        let duringCoolDown = breaker.allowsRequest(now: start + .seconds(4))
        #expect(!duringCoolDown)
        #expect(breaker.openings == 1)
    }

    @Test("after the cool-down exactly one probe goes out; its success closes, its failure reopens")
    func probe() {
        var breaker = CircuitBreaker(failureThreshold: 1, coolDown: .seconds(5))
        breaker.recordFailure(now: start)
        let probe = breaker.allowsRequest(now: start + .seconds(5))
        #expect(probe)
        #expect(breaker.state == .halfOpen)
        let second = breaker.allowsRequest(now: start + .seconds(5))
        #expect(!second)
        breaker.recordFailure(now: start + .seconds(6))
        #expect(breaker.state == .open(until: start + .seconds(11)))
        #expect(breaker.openings == 2)
        let nextProbe = breaker.allowsRequest(now: start + .seconds(11))
        #expect(nextProbe)
        breaker.recordSuccess()
        #expect(breaker.state == .closed(failures: 0))
        let closed = breaker.allowsRequest(now: start + .seconds(11))
        #expect(closed)
    }
    @Test("a request admitted before the breaker opened is turned away when its turn comes; the probe admitted after it still goes")
    func queuedRequests() {
        var breaker = CircuitBreaker(failureThreshold: 1, coolDown: .seconds(5))
        let admitted = breaker.allowsRequest(now: start)
        #expect(admitted)
        let queued = breaker.openings
        #expect(breaker.stillAllows(admittedAt: queued))
        breaker.recordFailure(now: start)
        #expect(!breaker.stillAllows(admittedAt: queued))
        let probeAdmitted = breaker.allowsRequest(now: start + .seconds(5))
        #expect(probeAdmitted)
        let probe = breaker.openings
        #expect(breaker.stillAllows(admittedAt: probe))
        #expect(!breaker.stillAllows(admittedAt: queued))
        breaker.recordSuccess()
        // Closed again: whatever waited may go.
        #expect(breaker.stillAllows(admittedAt: queued))
    }
}
