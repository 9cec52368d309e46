import Foundation
import HTTPTypes

extension DataRequest {
    /// What makes two requests interchangeable: the URL and everything that
    /// can change the response (``Variant``), but not the priority.
    public struct Key: Sendable, Hashable, CustomStringConvertible {
        let url: String
        /// Everything but the URL and the priority.
        let variant: Variant

        init(_ request: DataRequest) {
            url = request.url.absoluteString
            variant = Variant(request)
        }

        public var description: String { "\(url) \(variant)" }
    }

    /// Everything in a request, beside its URL, that can change the bytes the
    /// origin returns: every header field (`Authorization`, `Cookie`, fields a
    /// request modifier adds), the cookie engine, the TLS and redirect
    /// options, the client certificate and the credential.
    /// The download coalescer and every cache tier (through the loader's
    /// request identity) keep requests with different variants apart.
    ///
    /// Header names are compared as `HTTPField.Name` compares them (without
    /// regard to case) and the fields sorted, so `Authorization` and
    /// `authorization` are one field and the order fields were set in does
    /// not matter; a repeated name keeps its values in their order (that
    /// order is sent, so it can change the response).
    public struct Variant: Sendable, Hashable, CustomStringConvertible {
        /// One line per field that can change the response, sorted; the only
        /// state, so equality, hashing, ``isPlain`` and ``digest`` all derive
        /// from it.
        let fields: [String]

        /// The variant of `request`: the one place that lists what can change
        /// the response. A field added to ``DataRequest`` that changes what
        /// the origin returns (credentials, a client certificate, ...) adds its
        /// line here, and every key built from a request follows.
        init(_ request: DataRequest) {
            // The trace context fields name the caller's trace, not the image:
            // two loads in different traces share a download and every cache entry.
            // The line of a name is its canonical (lower-case) spelling, the
            // spelling keys had before HTTPFields, so stored keys stay valid.
            var fields: [String] = []
            var seen: Set<HTTPField.Name> = []
            for field in request.headers where !Self.traceFields.contains(field.name) && seen.insert(field.name).inserted {
                // A repeated name is one line, its values combined as RFC 9110
                // §5.3 says (", ", "; " for Cookie): the same line as one field
                // holding the list, which means the same. No value holds a
                // line break, so none can pass for the next line.
                fields.append("h:\(field.name.canonicalName): \(request.headers[field.name] ?? "")")
            }
            if request.handleCookies { fields.append("o:cookies") }
            if request.allowInvalidSSLCertificates { fields.append("o:insecure-tls") }
            if !request.followRedirects { fields.append("o:no-redirects") }
            if let certificate = request.clientCertificate { fields.append(certificate.variantField) }
            if let credential = request.credential { fields.append(credential.variantField) }
            self.fields = fields.sorted()
        }

        /// W3C Trace Context and Baggage fields, which the loader injects
        /// after the identity is computed and which never change the response.
        static let traceFields: Set<HTTPField.Name> = [.traceparent, .tracestate, HTTPField.Name("baggage")!]

        private init(fields: [String]) {
            self.fields = fields
        }

        /// The variant of a request with every default: no header field, no
        /// cookies, verified TLS, redirects followed.
        static let plain = Variant(fields: [])

        /// Whether this is the variant of a request with every default (cache
        /// keys of such requests carry no variant part).
        var isPlain: Bool { fields.isEmpty }

        /// This variant without the header fields named in `names`: what a
        /// cache identity keeps when the caller declared those fields
        /// irrelevant to the image.
        func removingHeaders(_ names: Set<HTTPField.Name>) -> Variant {
            guard !names.isEmpty, !fields.isEmpty else { return self }
            let canonical = Set(names.map(\.canonicalName))
            return Variant(fields: fields.filter { field in
                guard field.hasPrefix("h:"), let colon = field.dropFirst(2).firstIndex(of: ":") else { return true }
                return !canonical.contains(String(field[field.index(field.startIndex, offsetBy: 2)..<colon]))
            })
        }

        /// A SHA-256 hex digest of the fields: the variant's part of cache
        /// keys, so that credentials never appear in a key, a file name or a
        /// log line.
        var digest: String {
            SHA256.hexDigest(fields.joined(separator: "\n"))
        }

        public var description: String {
            // Header values, credentials and key pass phrases are secrets:
            // name them, never print them.
            let names = fields.map { field in
                field.prefix { $0 != ":" } == "h" ? String(field.dropFirst(2).prefix { $0 != ":" }) : String(field.prefix { $0 != "=" })
            }
            return "[\(names.joined(separator: ","))]"
        }
    }

    /// The key under which the loader's download coalescer shares this
    /// request's transfer.
    public var key: Key { Key(self) }
}
