/// Which requests may make the server fetch an upstream: the one owner of
/// the signing rules, asked by both URL forms.
///
/// With a key (`THUMBNAIL_KEY`), every route that fetches needs a valid
/// signature: the imgproxy-style path in its first segment, the query form
/// in a last `signature` parameter (``querySignature(in:)``). Only two
/// explicit settings loosen that: `--allow-unsigned-query` (the query form
/// needs none; the imgproxy-style paths still do) and the development flag
/// `--allow-unsigned` (the signature `insecure` on imgproxy-style paths, and
/// an unsigned query form). Without a key, imgproxy-style paths are refused
/// unless `--allow-unsigned`, and the query form is open, as a warning at
/// start-up says.
struct SignaturePolicy: Sendable {
    /// Verifies signatures; `nil` without a key.
    let signer: URLSigner?
    /// `--allow-unsigned`: development only.
    let allowsUnsigned: Bool
    /// `--allow-unsigned-query`: the query form needs no signature.
    let allowsUnsignedQuery: Bool

    /// The query parameter that carries the query form's signature.
    static let queryParameter = "signature"

    /// Whether the query form needs a signature: a key is set and neither
    /// flag waives it.
    var queryNeedsSignature: Bool {
        signer != nil && !allowsUnsigned && !allowsUnsignedQuery
    }

    /// Checks an imgproxy-style request: `signature` is its first path
    /// segment, `path` the rest (from its `/`), both as sent.
    ///
    /// - Throws: ``ThumbnailError/forbidden(_:)`` unless the signature is
    ///   the canonical one for `path`, or `insecure` with `--allow-unsigned`.
    func checkProcessing(signature: Substring, path: Substring) throws(ThumbnailError) {
        if allowsUnsigned && signature == "insecure" { return }
        guard let signer else {
            throw .forbidden("unsigned requests are not allowed (no THUMBNAIL_KEY)")
        }
        guard signer.verify(signature: signature, path: String(path)) else { throw .forbidden("invalid signature") }
    }

    /// Checks a query-form request whose request target (path and query, as
    /// sent) is `target`.
    ///
    /// - Throws: ``ThumbnailError/forbidden(_:)`` when a signature is needed
    ///   and the target has none, or a wrong one; a `signature` parameter
    ///   anywhere but last is refused too (the signed text would be ambiguous).
    func checkQuery(target: Substring) throws(ThumbnailError) {
        guard queryNeedsSignature, let signer else { return }
        guard let (signed, signature) = Self.querySignature(in: target) else {
            throw .forbidden("a signature is required: a last query parameter signature=… (THUMBNAIL_KEY is set)")
        }
        guard signer.verify(signature: signature, path: String(signed)) else { throw .forbidden("invalid signature") }
    }

    /// Splits a query-form target into the text that is signed and the
    /// signature: the signature is the value of the last parameter, named
    /// `signature`; the signed text is the target before the `&` (or `?`)
    /// that starts it. `nil` when the last parameter is not a signature, or
    /// when another parameter is named `signature` too.
    ///
    /// `/thumbnail?url=…&width=64&height=64&signature=SIG` signs
    /// `/thumbnail?url=…&width=64&height=64` (imgproxy's HMAC, key and salt).
    static func querySignature(in target: Substring) -> (signed: Substring, signature: Substring)? {
        guard let question = target.firstIndex(of: "?") else { return nil }
        let query = target[target.index(after: question)...]
        let parameters = query.split(separator: "&", omittingEmptySubsequences: false)
        guard let last = parameters.last, last.hasPrefix(queryParameter + "=") else { return nil }
        let others = parameters.dropLast()
        guard !others.contains(where: { $0 == queryParameter || $0.hasPrefix(queryParameter + "=") }) else { return nil }
        // The separator before the signature parameter: `&`, or the `?` when it is alone.
        let separator = target.index(before: last.startIndex)
        return (target[..<separator], last.dropFirst(queryParameter.count + 1))
    }

    /// Whether a path's first segment can be a signature, so the path is an
    /// imgproxy-style request rather than an unknown route (a 404): `insecure`,
    /// or 20 to 100 characters of base64url (with `=`, so padded spellings
    /// still reach the signature check and its 403). `/favicon.ico`,
    /// `/robots.txt` or `/admin` are not.
    static func isSignatureShaped(_ segment: Substring) -> Bool {
        if segment == "insecure" { return true }
        guard (20...100).contains(segment.utf8.count) else { return false }
        return segment.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "="): true
            default: false
            }
        }
    }
}
