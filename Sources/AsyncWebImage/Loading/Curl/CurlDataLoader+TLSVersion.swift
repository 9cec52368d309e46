import CCurl

extension CurlDataLoader {
    /// A TLS protocol version, for ``Configuration/minimumTLSVersion``.
    public enum TLSVersion: Sendable, Hashable, CaseIterable {
        /// TLS 1.2 (RFC 5246).
        case tls1_2
        /// TLS 1.3 (RFC 8446).
        case tls1_3

        /// curl's `CURLOPT_SSLVERSION` value for "this version or later".
        var curlValue: Int {
            switch self {
            case .tls1_2: Int(CURL_SSLVERSION_TLSv1_2)
            case .tls1_3: Int(CURL_SSLVERSION_TLSv1_3)
            }
        }
    }
}
