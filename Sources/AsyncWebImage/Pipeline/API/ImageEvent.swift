/// What a load reports while it runs, in order: progress, previews, then
/// the final response.
public enum ImageEvent: Sendable {
    /// Bytes received so far, and the total when the server announced it.
    case progress(received: Int64, expected: Int64?)
    /// A progressive preview decoded from the bytes so far (only with `.progressiveLoad`).
    case preview(Image)
    /// The final image and where it came from. With `.refreshCached` a second
    /// `.finished` may follow the cached one when the server had a newer image.
    case finished(ImageResponse)
}
