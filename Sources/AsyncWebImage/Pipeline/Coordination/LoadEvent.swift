/// What the shared work of a load tells its subscribers, in order: the
/// pipeline's own form of ``ImageEvent``, whose final result may carry no
/// image (a data load). The public sequences turn it into ``ImageEvent``.
enum LoadEvent: Sendable {
    /// Bytes received so far, and the total when the server announced it.
    case progress(received: Int64, expected: Int64?)
    /// A progressive preview.
    case preview(Image)
    /// The final result.
    case finished(LoadResult)
}
