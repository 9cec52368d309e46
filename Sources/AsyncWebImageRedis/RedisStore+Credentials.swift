extension RedisStore {
    /// What a store authenticates with: a password (`requirepass`, the
    /// `default` user) or an ACL user and its password (Redis 6 and later).
    ///
    /// The password never appears in a description, a log line or a
    /// `dump`: every textual form of this value redacts it.
    public struct Credentials: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
        /// The ACL user; `nil` for the `default` user (`AUTH password`).
        public var username: String?
        /// The password.
        public var password: String

        /// Creates credentials for `AUTH [username] password`.
        public init(username: String? = nil, password: String) {
            self.username = username
            self.password = password
        }

        /// The user, the password redacted.
        public var description: String { "Credentials(username: \(username ?? "default"), password: <redacted>)" }

        /// As ``description``: redacted.
        public var debugDescription: String { description }

        /// A mirror without the password, so `dump` and reflection-based
        /// loggers cannot print it either.
        public var customMirror: Mirror {
            Mirror(self, children: ["username": username ?? "default", "password": "<redacted>"])
        }

        /// `AUTH`'s arguments after the command name.
        var authArguments: [[UInt8]] {
            (username.map { [Array($0.utf8)] } ?? []) + [Array(password.utf8)]
        }
    }
}
