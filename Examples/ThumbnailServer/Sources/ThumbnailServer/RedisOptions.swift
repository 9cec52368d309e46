import AsyncWebImageRedis
import Foundation

/// The fleet's Redis as the server's options describe it (the `redis…`
/// rows of ``ServerOptions/table``): nodes or cluster seeds, the tenant's
/// key prefix, database and credentials, TLS, deadlines.
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

    /// Checks what single flags cannot: a user needs a password, a client
    /// certificate its key, and what the store refuses (a cluster has database 0 only).
    func validate() throws(UsageError) {
        if user != nil && password == nil {
            throw UsageError("--redis-user needs a password (THUMBNAIL_REDIS_PASSWORD or --redis-password-file)")
        }
        if (certificateFile == nil) != (privateKeyFile == nil) {
            throw UsageError("--redis-tls-cert and --redis-tls-key go together")
        }
        // The rest is the store's own check (RedisStore.Configuration.validate),
        // so that the server and the library read a setting one way.
        guard let configuration = configuration() else { return }
        do {
            try configuration.validate()
        } catch {
            throw UsageError("\(Self.flags[error.setting] ?? "Redis"): expects \(error.expected)")
        }
    }

    /// The flag that sets each ``RedisStore/Configuration`` property the server exposes.
    private static let flags = [
        "endpoints": "--redis", "keyPrefix": "--redis-prefix", "database": "--redis-db",
        "commandTimeout": "--redis-timeout-ms", "lookupBudget": "--redis-budget-ms",
    ]
}
