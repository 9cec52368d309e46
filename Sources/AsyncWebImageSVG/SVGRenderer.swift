import AsyncWebImage
import AWILocking
import CSVGRenderProcess
import Foundation
import Synchronization

/// Where an ``SVGCoder``'s renders run: in worker processes it can kill,
/// on a few dedicated threads of its own.
///
/// librsvg 2.54 cannot stop a render once it has started (cancellation came
/// in 2.59), so a render that passes its deadline in this process would go
/// on taking a core long after its request failed. A worker is this same
/// executable started again (`CSVGRenderProcess`: no helper binary, no
/// set-up for an application), at a lower priority (nice 10 by default),
/// with limits on its CPU time and memory; when a render passes its
/// deadline, or its task is cancelled, the worker is killed, and its CPU is
/// free at once. A worker serves one render at a time and is kept for the
/// next (a fresh one is started after a kill); idle ones end after
/// ``idleLifetime``.
///
/// The threads (``DedicatedThreadPool``, `maxConcurrentRenders` of them)
/// bound the renders running at once; each waits in `poll` on its worker's
/// socket, never on the cooperative pool. A render whose deadline passes
/// while it waits for a thread fails without starting.
///
/// Where the coder's code is not part of the main executable (the SVG
/// product built into a shared library), `/proc/self/exe` has no worker:
/// renders then run on the threads, in this process, and one past its
/// deadline runs to its end (the wait for it does not).
final class SVGRenderer: Sendable {
    /// One render: the document and everything that decides its raster.
    struct Job: Sendable {
        var data: Data
        var options: ImageDecodingOptions
        var filterWork: Int
        var maxFilterPixelCount: Int
        var timeout: Duration
        var deadline: ContinuousClock.Instant
    }

    let threads: DedicatedThreadPool
    /// The most renders at once (the threads).
    let maxConcurrentRenders: Int
    /// The workers' nice value.
    let nice: Int32
    /// Whether renders run in worker processes (see the type's discussion).
    let usesWorkers: Bool
    /// Workers waiting for a render, the most recently used last.
    private let idle = Lock<[SVGRenderProcess]>([])

    /// The longest a worker is kept idle for another render; it exits by
    /// itself a little after (``SVGRenderWorker/idleTimeout``).
    static let idleLifetime: Duration = .seconds(20)

    init(maxConcurrentRenders: Int, nice: Int32) {
        self.maxConcurrentRenders = max(1, maxConcurrentRenders)
        self.nice = min(19, max(0, nice))
        threads = DedicatedThreadPool(name: "awi-svg", threadCount: self.maxConcurrentRenders)
        usesWorkers = awi_svg_worker_is_in_main_executable() != 0
    }

    deinit {
        for process in idle.withLock({ $0 }) { process.terminate() }
    }

    /// Renders `job` on one of the threads; cancelling the task kills its worker.
    func renderScheduled(_ job: Job) async throws -> Image {
        let cancellation = SVGRenderCancellation()
        return try await withTaskCancellationHandler {
            try await threads.run { [self] in try render(job, cancellation: cancellation) }
        } onCancel: {
            cancellation.cancel()
        }
    }

    /// Renders `job` on the calling thread.
    ///
    /// - Throws: ``ImageError/timeout(_:)`` past the deadline (the worker
    ///   killed); `CancellationError` when `cancellation` fires;
    ///   ``ImageError/tooLarge(_:limit:actual:)`` for a raster over the
    ///   limits; ``ImageError/undecodable(_:_:)`` with librsvg's message, or
    ///   when the worker ended (a crash, its memory limit).
    func render(_ job: Job, cancellation: SVGRenderCancellation?) throws -> Image {
        guard ContinuousClock.now < job.deadline else { throw Self.timedOut(job) }
        guard usesWorkers else { return try renderHere(job) }
        let process = try takeWorker(job, cancellation: cancellation)
        do {
            let image = try render(job, with: process, cancellation: cancellation)
            giveBack(process)
            return image
        } catch let interruption as SVGRenderProcess.Interruption {
            switch interruption {
            case .deadline:
                process.terminate()
                throw Self.timedOut(job)
            case .cancelled:
                process.terminate()
                throw CancellationError()
            case .closed:
                let ending = process.ended()
                if case .cpuLimit = ending { throw Self.timedOut(job) }
                throw ImageError.undecodable(.svg, "the render process \(ending) (a crash, or more memory than a render may take)")
            }
        } catch let error as RenderRefusal {
            // The worker is waiting for its next request: it can take another.
            giveBack(process)
            throw error.error
        }
    }

    /// An error the worker reported, or a raster the limits refuse: the worker stays usable.
    private struct RenderRefusal: Error {
        let error: ImageError
    }

    private func render(_ job: Job, with process: SVGRenderProcess, cancellation: SVGRenderCancellation?) throws -> Image {
        var request: [UInt8] = []
        // A CPU limit a little past the time limit: what stops the worker if the parent cannot.
        SVGRenderFrame.append(UInt32(clamping: job.timeout.components.seconds + 2), to: &request)
        request += job.data
        try process.send(.request, request, deadline: job.deadline, cancellation: cancellation)
        let sizeHeader = try process.receiveHeader(deadline: job.deadline, cancellation: cancellation)
        let sizePayload = try process.receive(count: sizeHeader.length, deadline: job.deadline, cancellation: cancellation)
        if sizeHeader.kind == .failure { throw RenderRefusal(error: .undecodable(.svg, String(decoding: sizePayload, as: UTF8.self))) }
        guard sizeHeader.kind == .size, sizePayload.count == 16 else { throw SVGRenderProcess.Interruption.closed }
        let intrinsic = (
            width: Double(bitPattern: SVGRenderFrame.read(sizePayload, at: 0, count: 8)),
            height: Double(bitPattern: SVGRenderFrame.read(sizePayload, at: 8, count: 8))
        )
        let size: PixelSize
        do {
            size = try Self.checkedSize(intrinsic: intrinsic, job: job)
        } catch {
            try process.send(.render, [UInt8](repeating: 0, count: 16), deadline: job.deadline, cancellation: cancellation)
            throw RenderRefusal(error: error)
        }
        var render: [UInt8] = []
        SVGRenderFrame.append(UInt32(size.width), to: &render)
        SVGRenderFrame.append(UInt32(size.height), to: &render)
        SVGRenderFrame.append(UInt64(Self.memoryBudget(for: size, options: job.options)), to: &render)
        try process.send(.render, render, deadline: job.deadline, cancellation: cancellation)
        let pixelsHeader = try process.receiveHeader(deadline: job.deadline, cancellation: cancellation)
        if pixelsHeader.kind == .failure {
            let message = String(decoding: try process.receive(count: pixelsHeader.length, deadline: job.deadline, cancellation: cancellation), as: UTF8.self)
            // cairo's NO_MEMORY, as librsvg names it: the render's memory limit, not a broken document.
            if message.contains("NoMemory") || message.contains("out of memory") {
                let budget = Self.memoryBudget(for: size, options: job.options)
                throw RenderRefusal(error: .tooLarge(.decodedBytes, limit: Int64(budget), actual: nil))
            }
            throw RenderRefusal(error: .undecodable(.svg, message))
        }
        guard pixelsHeader.kind == .pixels, pixelsHeader.length == size.pixelCount * 4 else { throw SVGRenderProcess.Interruption.closed }
        return try Image.make(width: size.width, height: size.height, pixelFormat: .rgba8, format: .svg) { output in
            let chunk = 1 << 20
            var offset = 0
            // Straight into the image's storage, a megabyte at a time.
            while offset < output.count {
                let count = min(chunk, output.count - offset)
                let bytes = try process.receive(count: count, deadline: job.deadline, cancellation: cancellation)
                bytes.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: output[offset..<offset + count]).copyMemory(from: $0) }
                offset += count
            }
        }
    }

    /// Renders in this process: where no worker can be started.
    private func renderHere(_ job: Job) throws -> Image {
        let document = try job.data.withUnsafeBytes { bytes throws(ImageError) in try SVGRasterizer.parse(bytes) }
        let size = try Self.checkedSize(intrinsic: document.intrinsicSize, job: job)
        return try Image.make(width: size.width, height: size.height, pixelFormat: .rgba8, format: .svg) { output in
            try SVGRasterizer.render(document, size: size, into: output)
        }
    }

    /// The raster for the document's intrinsic size, checked against the
    /// pixel and memory limits and against the pixels its filters would process.
    private static func checkedSize(intrinsic: (width: Double, height: Double), job: Job) throws(ImageError) -> PixelSize {
        let size = SVGCoder.rasterSize(intrinsic: intrinsic, options: job.options)
        try job.options.checkPixelLimit(size)
        try job.options.checkDecodeMemory(bytes: size.pixelCount * 8)
        let (filterPixels, overflow) = job.filterWork.multipliedReportingOverflow(by: size.pixelCount)
        if overflow || filterPixels > job.maxFilterPixelCount {
            throw .tooLarge(.filterPixels, limit: Int64(job.maxFilterPixelCount), actual: overflow ? nil : Int64(filterPixels))
        }
        return size
    }

    /// The memory a worker may add for one render (address space, which
    /// cairo's surfaces take whole before they are drawn on): room for
    /// librsvg's intermediate surfaces, 16 rasters, at least 256 MiB, and no
    /// more than twice the decode memory limit. Past it an allocation fails
    /// and the render with it (librsvg says `NoMemory`: a
    /// ``ImageError/tooLarge(_:limit:actual:)`` of decoded bytes).
    static func memoryBudget(for size: PixelSize, options: ImageDecodingOptions) -> Int {
        let raster = size.pixelCount * 4
        return min(max(256 << 20, 16 * raster), max(256 << 20, 2 * options.maxDecodeMemoryBytes))
    }

    private static func timedOut(_ job: Job) -> ImageError {
        .timeout("rendering the SVG took longer than \(job.timeout)")
    }

    // MARK: Workers

    /// An idle worker that is still there, else a new one.
    private func takeWorker(_ job: Job, cancellation: SVGRenderCancellation?) throws -> SVGRenderProcess {
        var stale: [SVGRenderProcess] = []
        defer { for process in stale { process.terminate() } }
        let now = ContinuousClock.now
        let taken = idle.withLock { idle -> SVGRenderProcess? in
            while let process = idle.popLast() {
                if now - process.idleSince < Self.idleLifetime, process.isAlive { return process }
                stale.append(process)
            }
            return nil
        }
        if let taken { return taken }
        do {
            return try SVGRenderProcess.spawn(nice: nice, deadline: job.deadline, cancellation: cancellation)
        } catch let interruption as SVGRenderProcess.Interruption {
            if case .cancelled = interruption { throw CancellationError() }
            throw Self.timedOut(job)
        }
    }

    /// Keeps `process` for the next render, unless as many wait already.
    private func giveBack(_ process: SVGRenderProcess) {
        var process = process
        process.idleSince = .now
        let now = ContinuousClock.now
        var surplus: [SVGRenderProcess] = []
        idle.withLock { idle in
            idle.removeAll { old in
                guard now - old.idleSince >= Self.idleLifetime else { return false }
                surplus.append(old)
                return true
            }
            if idle.count < maxConcurrentRenders { idle.append(process) } else { surplus.append(process) }
        }
        for process in surplus { process.terminate() }
    }

    /// The pids of the workers waiting for a render, for tests.
    var idleWorkerIDs: [pid_t] {
        idle.withLock { $0.map(\.pid) }
    }
}
