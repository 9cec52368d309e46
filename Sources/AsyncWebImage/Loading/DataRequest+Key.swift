import Foundation

extension DataRequest {
    /// What makes two requests interchangeable: the URL and everything that
    /// can change the response (every header field, e.g. `Authorization` and
    /// `Cookie`; the cookie, TLS and redirect options), but not the priority.
    ///
    /// Header names are lower-cased and sorted, so `Authorization` and
    /// `authorization` are one field.
    public struct Key: Sendable, Hashable, CustomStringConvertible {
        let url: String
        let headers: [String]
        let flags: UInt8

        init(_ request: DataRequest) {
            url = request.url.absoluteString
            headers = request.headers
                .map { "\($0.key.lowercased()): \($0.value)" }
                .sorted()
            flags = (request.handleCookies ? 1 : 0)
                | (request.allowInvalidSSLCertificates ? 2 : 0)
                | (request.followRedirects ? 4 : 0)
        }

        public var description: String {
            // Header values may be credentials: name them, never print them.
            let names = headers.map { $0.prefix { $0 != ":" } }.joined(separator: ",")
            return "\(url) [\(names)] flags \(flags)"
        }
    }

    /// The key under which ``DownloadCoalescer`` shares this request's transfer.
    public var key: Key { Key(self) }
}
