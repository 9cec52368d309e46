extension DataRequest {
    /// Credentials a request authenticates with to the origin: HTTP basic,
    /// digest, or a bearer token (`Authorization: Bearer`).
    ///
    /// Part of the request's identity (``DataRequest/Variant``): loads with
    /// different credentials, or with and without, never share a transfer or a
    /// cache entry. curl sends them to the request's own host only, not to the
    /// host of a redirect.
    public enum Credential: Sendable, Hashable {
        /// HTTP basic authentication (sent with the first request).
        case basic(user: String, password: String)
        /// HTTP digest authentication (RFC 7616): the first request goes without,
        /// the server's `401` with its `WWW-Authenticate` challenge is answered.
        case digest(user: String, password: String)
        /// A bearer token (RFC 6750), sent as `Authorization: Bearer <token>`.
        case bearer(String)

        /// The line of a request's variant (hashed into keys, never printed).
        var variantField: String {
            switch self {
            case .basic(let user, let password): "o:credential=basic|\(user)|\(password)"
            case .digest(let user, let password): "o:credential=digest|\(user)|\(password)"
            case .bearer(let token): "o:credential=bearer|\(token)"
            }
        }
    }
}
