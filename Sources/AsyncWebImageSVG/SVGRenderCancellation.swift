import CSVGRenderProcess
#if canImport(Glibc)
import Glibc
#endif

/// The signal that ends a render's waits when its task is cancelled: an
/// eventfd its waits poll beside the worker's socket (a task's cancellation
/// handler cannot reach a thread blocked in `poll` any other way).
final class SVGRenderCancellation: Sendable {
    /// The eventfd; -1 when none could be made (cancellation then waits for the deadline).
    let descriptor: Int32

    init() {
        let fd = awi_svg_eventfd()
        descriptor = fd >= 0 ? fd : -1
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Ends the render's waits.
    func cancel() {
        if descriptor >= 0 { awi_svg_eventfd_signal(descriptor) }
    }
}
