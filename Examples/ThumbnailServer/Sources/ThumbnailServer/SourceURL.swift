import Foundation

/// The one check of a source URL, for both URL forms: an absolute `http` or
/// `https` URL with a host and without credentials.
///
/// Credentials (`https://user:secret@host/a.jpg`) are refused: curl would
/// send them as `Authorization`, the origin's answer to an authenticated
/// request would then be cached and shared under a key that carries the
/// secret (RFC 9111 §3.5), and the secret would sit in logs and in the
/// fleet's Redis keys. A proxy has no business forwarding them.
enum SourceURL {
    /// The URL `text` names.
    ///
    /// - Throws: ``ThumbnailError/badRequest(_:)`` for anything else.
    static func parse(_ text: String) throws(ThumbnailError) -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty else {
            throw .badRequest("the source must be an absolute http or https URL")
        }
        guard url.user == nil, url.password == nil else {
            throw .badRequest("the source URL must not carry credentials")
        }
        return url
    }
}
