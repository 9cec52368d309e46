extension DataRequest {
    /// A TLS client certificate and its private key, for servers that ask the
    /// client to prove who it is (mutual TLS).
    ///
    /// Set it on a request (``DataRequest/clientCertificate``) or as the loader's
    /// default (``CurlDataLoader/Configuration/clientCertificate``). It is part of
    /// the request's identity (``DataRequest/Variant``): loads made with two
    /// different certificates never share a transfer or a cache entry.
    public struct TLSClientCertificate: Sendable, Hashable {
        /// How the certificate file is encoded (`CURLOPT_SSLCERTTYPE`).
        public enum Format: String, Sendable, Hashable {
            /// PEM (the default).
            case pem = "PEM"
            /// DER.
            case der = "DER"
            /// PKCS #12: certificate and key in one file (``keyPath`` is then nil).
            case pkcs12 = "P12"
        }

        /// The path of the certificate file (`CURLOPT_SSLCERT`).
        public var certificatePath: String
        /// The encoding of ``certificatePath``; `.pem` by default.
        public var format: Format
        /// The path of the private key (`CURLOPT_SSLKEY`, PEM); nil when the
        /// certificate file holds the key too.
        public var keyPath: String?
        /// The pass phrase of the key (`CURLOPT_KEYPASSWD`); nil for an
        /// unencrypted key. Never printed; hashed into cache keys only.
        public var keyPassword: String?

        /// Creates a client certificate.
        /// - Parameters:
        ///   - certificatePath: The certificate file.
        ///   - format: Its encoding; `.pem` by default.
        ///   - keyPath: The private key file, if separate.
        ///   - keyPassword: The key's pass phrase, if it has one.
        public init(certificatePath: String, format: Format = .pem, keyPath: String? = nil, keyPassword: String? = nil) {
            self.certificatePath = certificatePath
            self.format = format
            self.keyPath = keyPath
            self.keyPassword = keyPassword
        }

        /// The line of a request's variant: everything above, so that two
        /// certificates (or one key under two pass phrases) never share.
        var variantField: String {
            "o:client-certificate=\(format.rawValue)|\(certificatePath)|\(keyPath ?? "")|\(keyPassword ?? "")"
        }
    }
}
