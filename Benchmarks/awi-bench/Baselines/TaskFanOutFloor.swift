import Synchronization

/// What the Swift runtime alone charges for the shape of the coalescing
/// scenario: `callers` child tasks in a task group, each waiting on a
/// continuation that one job of `work` CPU time resumes when it ends — no
/// library code at all. Its ratio to the job alone is the floor under the
/// loader's ratio: spawning, parking, resuming and collecting a thousand
/// tasks costs the same CPU whoever does it, and on 2 cores it competes
/// with the job.
enum TaskFanOutFloor {
    /// Median over `rounds` of (fan-out round time / job time alone).
    static func ratio(callers: Int, work: Double, rounds: Int) async -> Double {
        var ratios: [Double] = []
        for _ in 0..<rounds {
            let alone = ContinuousClock.now
            await Task(priority: .high) { spin(seconds: work) }.value
            let single = ContinuousClock.now - alone

            let gate = Gate()
            let started = ContinuousClock.now
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<callers {
                    group.addTask {
                        // The first caller starts the job, as the first load does.
                        if gate.claimStart() {
                            Task(priority: .high) {
                                spin(seconds: work)
                                gate.open()
                            }
                        }
                        await gate.wait()
                    }
                }
                await group.waitForAll()
            }
            ratios.append(seconds(ContinuousClock.now - started) / seconds(single))
        }
        return ratios.sorted()[ratios.count / 2]
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    /// Burns CPU for `seconds` (a decode's stand-in).
    private static func spin(seconds: Double) {
        let end = ContinuousClock.now + .nanoseconds(Int64(seconds * 1e9))
        var x = 0
        while ContinuousClock.now < end { x &+= 1 }
        blackHole(x)
    }

    /// Parks callers until opened; resumes each exactly once.
    private final class Gate: Sendable {
        private let state = Mutex<(waiters: [UnsafeContinuation<Void, Never>], isOpen: Bool)>(([], false))
        private let started = Atomic<Bool>(false)

        /// True for the first caller only.
        func claimStart() -> Bool {
            !started.exchange(true, ordering: .relaxed)
        }

        func wait() async {
            await withUnsafeContinuation { continuation in
                let isOpen = state.withLock { state -> Bool in
                    if !state.isOpen { state.waiters.append(continuation) }
                    return state.isOpen
                }
                if isOpen { continuation.resume() }
            }
        }

        func open() {
            let waiters = state.withLock { state -> [UnsafeContinuation<Void, Never>] in
                state.isOpen = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }
}
