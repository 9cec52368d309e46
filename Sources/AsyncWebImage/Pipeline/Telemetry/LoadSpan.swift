import Synchronization
import Tracing

/// The `image.load` span of one stream (``ImageLoader/events(_:options:context:)``
/// and ``ImageLoader/images(_:options:context:)``), which, unlike a call of
/// ``ImageLoader/image(_:options:context:)``, has no scope to end it in:
/// the consumer's iterator ends it once, when it sees the end of the stream
/// or an error, or when it is dropped (cancelled, or the loop left early).
final class LoadSpan: Sendable {
    private let span: any Span
    private let ended = Atomic<Bool>(false)

    init(_ span: any Span) {
        self.span = span
    }

    /// The span's context: current while the load starts, so that the
    /// stages' spans (and the work's) are its children.
    var context: ServiceContext { span.context }

    /// Ends the span (the first call only), recording `error` if given: an
    /// ``ImageError`` as the span's error, cancellation as a `cancelled`
    /// event (``LoaderTelemetry/record(_:on:)``).
    func end(error: (any Error)? = nil) {
        guard !ended.exchange(true, ordering: .relaxed) else { return }
        if let error { LoaderTelemetry.record(error, on: span) }
        span.end()
    }
}
