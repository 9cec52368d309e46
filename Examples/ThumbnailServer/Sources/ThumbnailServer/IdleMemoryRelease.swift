import AsyncWebImage
import ServiceLifecycle

/// Gives the memory the allocator keeps for the next decode back to the
/// system once the server has stopped decoding.
///
/// `ImageLoader.AllocatorTuning` keeps freed decode buffers resident, so that under load
/// the next decode reuses their pages instead of faulting fresh ones in; after
/// a burst of large images the process would stay at the burst's size for
/// good. This service looks at the CPU limiter every `interval`, and when it
/// finds it idle (no permit held, nobody waiting) twice in a row after it
/// last saw work, it calls `ImageLoader.AllocatorTuning.releaseFreeMemory()` (glibc's
/// `malloc_trim(0)`): once per quiet spell, never while requests queue, so
/// the win under load stays.
struct IdleMemoryRelease: Service {
    let limiter: ConcurrencyLimiter
    /// Whether requests are under way that the limiter does not show: a
    /// load downloading under the loader's body budget (the limiter is idle
    /// while the next body downloads, and a trim then would make the next
    /// decode fault its buffers in again).
    var busy: @Sendable () -> Bool = { false }
    var interval: Duration = .milliseconds(100)
    /// What giving memory back does; the tests count the calls.
    var release: @Sendable () -> Void = { ImageLoader.AllocatorTuning.releaseFreeMemory() }

    func run() async throws {
        var sawWork = false
        var idlePolls = 0
        while !Task.isShuttingDownGracefully {
            do { try await Task.sleep(for: interval) } catch { return }
            // Heavy decodes hold no normal permit: one may still run now;
            // trimming then releases only what is free, and costs a walk.
            if limiter.availablePermits < limiter.limit || limiter.waitingCount > 0 || busy() {
                sawWork = true
                idlePolls = 0
                continue
            }
            idlePolls += 1
            if sawWork && idlePolls >= 2 {
                sawWork = false
                release()
            }
        }
    }
}
