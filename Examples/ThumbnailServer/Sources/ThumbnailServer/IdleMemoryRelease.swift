import AsyncWebImage
import ServiceLifecycle

/// Gives the memory the allocator keeps for the next decode back to the
/// system once the server has stopped decoding.
///
/// `ImageLoader.AllocatorTuning` keeps freed decode buffers resident, so that under load
/// the next decode reuses their pages instead of faulting fresh ones in; after
/// a burst of large images the process would stay at the burst's size for
/// good. This service asks the loader every `interval` whether it is busy,
/// and when it finds it idle (no CPU job running or waiting, no load holding
/// a body) twice in a row after it last saw work, it calls
/// `ImageLoader.AllocatorTuning.releaseFreeMemory()` (glibc's
/// `malloc_trim(0)`): once per quiet spell, never while requests queue, so
/// the win under load stays.
struct IdleMemoryRelease: Service {
    /// Whether work is under way: the loader's CPU jobs (decodes, resizes,
    /// the server's encodes), and loads downloading under its body budget
    /// (the CPU is idle while the next body downloads, and a trim then
    /// would make the next decode fault its buffers in again).
    var busy: @Sendable () -> Bool
    var interval: Duration = .milliseconds(100)
    /// What giving memory back does; the tests count the calls.
    var release: @Sendable () -> Void = { ImageLoader.AllocatorTuning.releaseFreeMemory() }

    /// The release of a server whose work is `loader`'s.
    init(loader: ImageLoader, interval: Duration = .milliseconds(100), release: @escaping @Sendable () -> Void = { ImageLoader.AllocatorTuning.releaseFreeMemory() }) {
        self.init(busy: { loader.cpuWorkCount > 0 || loader.loadsHoldingBodies > 0 }, interval: interval, release: release)
    }

    /// A release that asks `busy` whether work is under way.
    init(busy: @escaping @Sendable () -> Bool, interval: Duration = .milliseconds(100), release: @escaping @Sendable () -> Void = { ImageLoader.AllocatorTuning.releaseFreeMemory() }) {
        self.busy = busy
        self.interval = interval
        self.release = release
    }

    func run() async throws {
        var sawWork = false
        var idlePolls = 0
        while !Task.isShuttingDownGracefully {
            do { try await Task.sleep(for: interval) } catch { return }
            // Heavy decodes hold no normal permit: one may still run now;
            // trimming then releases only what is free, and costs a walk.
            if busy() {
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
