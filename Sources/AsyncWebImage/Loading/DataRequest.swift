public import Foundation
public import HTTPTypes

/// One request for the bytes behind a URL: what ``DataLoading`` loaders take
/// and what the loader's download coalescer keys transfers on.
///
/// Everything here except ``priority`` can change the response, so two
/// requests that differ in anything but priority never share a transfer
/// (see ``key``).
public struct DataRequest: Sendable, Hashable {
    /// How urgently a request waiting for a free transfer slot should start.
    public enum Priority: Int, Sendable, Hashable, Comparable, CaseIterable {
        /// Start after every waiting `normal` and `high` request (`.lowPriority`).
        case low = 0
        /// The default.
        case normal = 1
        /// Start before every waiting `normal` and `low` request (`.highPriority`).
        case high = 2

        public static func < (lhs: Priority, rhs: Priority) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The URL to load.
    public var url: URL
    /// Header fields sent in addition to (and replacing, by name) the loader's
    /// defaults, in their order and with their names spelled as given.
    /// Names are matched without regard to case (`HTTPField.Name`) when
    /// sent and when keyed; a repeated name sends every value.
    ///
    /// `HTTPFields` cannot hold a line break: a value set through it has
    /// CR, LF and NUL replaced by spaces. Strings from elsewhere should go
    /// through ``setValue(_:forHTTPHeaderField:)``, which refuses them instead.
    public var headers: HTTPFields
    /// Priority among the requests waiting for a slot; `.normal` by default.
    public var priority: Priority
    /// Send and store cookies (curl's cookie engine, shared by the loader's
    /// transfers); off by default.
    public var handleCookies: Bool
    /// Accept any TLS certificate and host name; off by default. Only for
    /// testing against self-signed servers.
    public var allowInvalidSSLCertificates: Bool
    /// Follow redirects (up to the loader's `maxRedirects`); on by default.
    public var followRedirects: Bool
    /// How the loader retries this request when it fails; nil (the
    /// default) for the loader's ``ImageLoader/Configuration/retryPolicy``.
    /// Not part of ``key``: subscribers that share a transfer share the
    /// policy of the one that started it.
    public var retryPolicy: DataRequest.RetryPolicy?
    /// The TLS client certificate to present when the server asks for one;
    /// nil (the default) for the loader's
    /// ``CurlDataLoader/Configuration/clientCertificate``. Part of ``key``.
    public var clientCertificate: DataRequest.TLSClientCertificate?
    /// Credentials for the origin (basic, digest or bearer); nil (the
    /// default) for none. Part of ``key``: tenants never share.
    public var credential: DataRequest.Credential?

    /// Creates a request.
    /// - Parameters:
    ///   - url: The URL to load.
    ///   - headers: Extra header fields; none by default.
    ///   - priority: The priority; `.normal` by default.
    ///   - handleCookies: Whether to send and store cookies; false by default.
    ///   - allowInvalidSSLCertificates: Whether to skip TLS verification; false by default.
    ///   - followRedirects: Whether to follow redirects; true by default.
    ///   - clientCertificate: The TLS client certificate; the loader's by default.
    ///   - credential: Credentials for the origin; none by default.
    public init(
        url: URL,
        headers: HTTPFields = [:],
        priority: Priority = .normal,
        handleCookies: Bool = false,
        allowInvalidSSLCertificates: Bool = false,
        followRedirects: Bool = true,
        clientCertificate: DataRequest.TLSClientCertificate? = nil,
        credential: DataRequest.Credential? = nil
    ) {
        self.clientCertificate = clientCertificate
        self.credential = credential
        self.url = url
        self.headers = headers
        self.priority = priority
        self.handleCookies = handleCookies
        self.allowInvalidSSLCertificates = allowInvalidSSLCertificates
        self.followRedirects = followRedirects
    }

    /// Sets (or with nil removes) a header field from strings, replacing
    /// every field of the same name in any case: the checked way in for
    /// names and values that come from outside the program (a config file,
    /// a command line, another service).
    ///
    /// - Parameters:
    ///   - value: The value, or nil to remove the field. Leading and
    ///     trailing spaces and tabs are dropped.
    ///   - name: The field name, an RFC 9110 token.
    /// - Throws: ``ImageError/requestRejected(_:)`` when `name` is not a
    ///   valid field name or `value` holds a control character (CR, LF,
    ///   NUL, ...): such input is refused, never sent, so it cannot inject
    ///   a second field or request.
    public mutating func setValue(_ value: String?, forHTTPHeaderField name: String) throws(ImageError) {
        guard let fieldName = HTTPField.Name(name) else {
            throw .requestRejected("invalid header field name \(name.debugDescription)")
        }
        guard let value else {
            headers[fieldName] = nil
            return
        }
        let trimmed = value.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        guard HTTPField.isValidValue(trimmed) else {
            // The value may be a secret (a token): name the field, not the value.
            throw .requestRejected("invalid value for header field \(fieldName.rawName) (control characters)")
        }
        headers[fieldName] = trimmed
    }
}
