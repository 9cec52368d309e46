import AsyncWebImageRedis
import Foundation

/// The fleet's Redis as the server's options describe it: nodes or cluster
/// seeds, the tenant's key prefix, database and credentials, TLS, deadlines.
///
/// Secrets come from the environment or a file only — never from a
/// command-line value, which other users of the machine can list — and
/// nothing here prints them (``RedisStore/Credentials`` redacts itself).
struct RedisOptions: Sendable, CustomReflectable {
    /// The nodes (`--redis HOST:PORT` or `unix:PATH`, repeatable; env
    /// `THUMBNAIL_REDIS`, comma-separated), or the cluster's seeds. None by default.
    var endpoints: [RedisStore.Endpoint] = []
    /// `--redis-cluster`: the endpoints are seeds of a Redis Cluster.
    var isCluster = false
    /// `--redis-replica-reads`: in a cluster, lookups go to replicas.
    var readsFromReplicas = false
    /// `--redis-prefix`: this tenant's key prefix. `"awi:"` by default.
    var keyPrefix = "awi:"
    /// `--redis-db`: the database number. 0 by default.
    var database = 0
    /// `--redis-user`: the ACL user; `nil` for the `default` user.
    var user: String?
    /// The password: `THUMBNAIL_REDIS_PASSWORD`, or the first line of
    /// `--redis-password-file` (env `THUMBNAIL_REDIS_PASSWORD_FILE`).
    var password: String?
    /// `--redis-tls`: speak TLS (implied by any other `--redis-tls-…` flag).
    var usesTLS = false
    /// `--redis-tls-ca`: the authorities to trust; the system's by default.
    var caFile: String?
    /// `--redis-tls-cert` and `--redis-tls-key`: a client certificate.
    var certificateFile: String?
    var privateKeyFile: String?
    /// `--redis-tls-server-name`: the name the server's certificate must carry.
    var serverName: String?
    /// `--redis-timeout-ms`: one command's deadline (writes, leases). 250 ms by default.
    var commandTimeout: Duration = .milliseconds(250)
    /// `--redis-budget-ms`: the longest a lookup waits before it is a miss. 250 ms by default.
    var lookupBudget: Duration = .milliseconds(250)

    /// Every option but the password, which shows as redacted: `dump`,
    /// `print` and string interpolation all go through this mirror.
    var customMirror: Mirror {
        Mirror(self, children: [
            "endpoints": endpoints, "isCluster": isCluster, "readsFromReplicas": readsFromReplicas, "keyPrefix": keyPrefix,
            "database": database, "user": user as Any, "password": password == nil ? "none" : "<redacted>",
            "usesTLS": usesTLS, "caFile": caFile as Any, "certificateFile": certificateFile as Any,
            "privateKeyFile": privateKeyFile as Any, "serverName": serverName as Any,
            "commandTimeout": commandTimeout, "lookupBudget": lookupBudget,
        ])
    }

    /// The store's configuration, or `nil` when no endpoint is given.
    func configuration() -> RedisStore.Configuration? {
        guard !endpoints.isEmpty else { return nil }
        var configuration = RedisStore.Configuration(endpoints: endpoints)
        configuration.topology = isCluster ? .cluster(readsFromReplicas: readsFromReplicas) : .independentNodes
        configuration.keyPrefix = keyPrefix
        configuration.database = database
        configuration.commandTimeout = commandTimeout
        configuration.lookupBudget = lookupBudget
        if let password { configuration.credentials = .init(username: user, password: password) }
        if usesTLS {
            configuration.tls = .init(caFile: caFile, certificateFile: certificateFile, privateKeyFile: privateKeyFile, serverName: serverName)
        }
        return configuration
    }

    /// The flags that take a value.
    static let valueFlags = [
        "--redis-prefix", "--redis-db", "--redis-user", "--redis-password-file", "--redis-tls-ca", "--redis-tls-cert",
        "--redis-tls-key", "--redis-tls-server-name", "--redis-timeout-ms", "--redis-budget-ms",
    ]
    /// The flags without a value.
    static let bareFlags = ["--redis-cluster", "--redis-replica-reads", "--redis-tls"]

    static let usage = """
      --redis HOST:PORT         the fleet's Redis (or unix:PATH); repeatable (env
                                THUMBNAIL_REDIS, comma-separated)
      --redis-cluster           the --redis endpoints are seeds of a Redis Cluster
      --redis-replica-reads     in a cluster, look values up on the replicas
      --redis-prefix PREFIX     this tenant's key prefix (default awi:)
      --redis-db N              database number (default 0; a cluster has only 0)
      --redis-user NAME         ACL user (needs a password)
      --redis-password-file F   the password, first line of F; or the environment's
                                THUMBNAIL_REDIS_PASSWORD (never a flag's value)
      --redis-tls               TLS to Redis (implied by the flags below)
      --redis-tls-ca FILE       authorities to trust (default: the system's)
      --redis-tls-cert FILE     client certificate (PEM), with --redis-tls-key FILE
      --redis-tls-server-name N the name the server's certificate must carry
      --redis-timeout-ms N      one Redis command's deadline, connect to reply;
                                past it, a miss (default 250)
      --redis-budget-ms N       the longest a lookup waits before it is a miss
                                (default 250)
    """

    /// Applies one Redis flag; `false` when `flag` is not one.
    mutating func apply(_ flag: String, value: () throws(UsageError) -> String, source: String) throws(UsageError) -> Bool {
        func milliseconds() throws(UsageError) -> Duration {
            guard let number = Int(try value()), number >= 1 else { throw UsageError("\(source)\(flag) needs a whole number of at least 1") }
            return .milliseconds(number)
        }
        switch flag {
        case "--redis":
            let text = try value()
            if text.hasPrefix("unix:"), text.count > 5 {
                endpoints.append(RedisStore.Endpoint(unixSocketPath: String(text.dropFirst(5))))
                return true
            }
            guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
                  (1...65_535).contains(port), colon > text.startIndex else {
                throw UsageError("\(source)--redis takes HOST:PORT or unix:PATH")
            }
            endpoints.append(RedisStore.Endpoint(host: String(text[..<colon]), port: port))
        case "--redis-cluster": isCluster = true
        case "--redis-replica-reads": readsFromReplicas = true
        case "--redis-prefix":
            let prefix = try value()
            guard !prefix.contains("{") && !prefix.contains("}") else { throw UsageError("\(source)--redis-prefix must not contain { or }") }
            keyPrefix = prefix
        case "--redis-db":
            guard let number = Int(try value()), number >= 0 else { throw UsageError("\(source)--redis-db needs a whole number of at least 0") }
            database = number
        case "--redis-user": user = try value()
        case "--redis-password-file":
            let path = try value()
            guard let text = try? String(contentsOfFile: path, encoding: .utf8),
                  let line = text.split(whereSeparator: \.isNewline).first, !line.isEmpty else {
                throw UsageError("\(source)--redis-password-file: cannot read a password from \(path)")
            }
            password = String(line)
        case "--redis-tls": usesTLS = true
        case "--redis-tls-ca": caFile = try value(); usesTLS = true
        case "--redis-tls-cert": certificateFile = try value(); usesTLS = true
        case "--redis-tls-key": privateKeyFile = try value(); usesTLS = true
        case "--redis-tls-server-name": serverName = try value(); usesTLS = true
        case "--redis-timeout-ms": commandTimeout = try milliseconds()
        case "--redis-budget-ms": lookupBudget = try milliseconds()
        default: return false
        }
        return true
    }

    /// Checks what single flags cannot: a user needs a password, a client certificate its key.
    func validate() throws(UsageError) {
        if user != nil && password == nil {
            throw UsageError("--redis-user needs a password (THUMBNAIL_REDIS_PASSWORD or --redis-password-file)")
        }
        if (certificateFile == nil) != (privateKeyFile == nil) {
            throw UsageError("--redis-tls-cert and --redis-tls-key go together")
        }
        if isCluster && database != 0 { throw UsageError("--redis-db: a Redis Cluster has database 0 only") }
    }
}
