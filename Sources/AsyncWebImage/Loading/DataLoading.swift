/// Something that loads the bytes behind a ``DataRequest``:
/// ``CurlDataLoader`` by default, replaceable (for example by a loader for a
/// shared cache tier, or a stub in tests).
public protocol DataLoading: Sendable {
    /// Starts loading `request` and returns its events.
    ///
    /// The returned sequence yields the response head, then body chunks,
    /// then ends; it throws ``ImageError`` for failures (HTTP status of 400
    /// or more as ``ImageError/httpStatus(_:)``) and `CancellationError` when
    /// the consuming task is cancelled.
    ///
    /// - Parameter request: What to load.
    /// - Returns: The transfer's events.
    /// - Important: The work stops when the consuming task is cancelled or
    ///   when the sequence and its iterator are released unfinished.
    ///   Implementations must not block the caller.
    func loadData(for request: DataRequest) -> DataTransfer
}
