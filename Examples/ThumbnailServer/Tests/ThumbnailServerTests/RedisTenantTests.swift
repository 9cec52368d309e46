import AsyncWebImage
import AsyncWebImageRedis
import Foundation
import Testing
@testable import thumbnail_server

/// The server's Redis options: a tenant's prefix, database and credentials
/// (secrets from the environment or a file only), TLS, a cluster; checked
/// against a real `redis-server` with an ACL user per tenant.
@Suite(.serialized)
struct RedisTenantTests {
    @Test("the flags make the store's configuration; the password comes from the environment or a file, never a flag, and is never printed")
    func options() async throws {
        let passwordFile = FileManager.default.temporaryDirectory.appendingPathComponent("awi-redis-password-\(UUID().uuidString)")
        try "from-file-secret\nignored\n".write(to: passwordFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: passwordFile) }
        let options = try await ServerOptions.parsed([
            "--redis", "10.1.2.3:7000", "--redis", "unix:/run/redis.sock", "--redis-prefix", "tenant-a:", "--redis-db", "3",
            "--redis-user", "tenant-a", "--redis-password-file", passwordFile.path, "--redis-tls-ca", "/etc/ca.pem",
            "--redis-tls-server-name", "redis.internal", "--redis-budget-ms", "120", "--redis-timeout-ms", "300",
        ], environment: ["THUMBNAIL_REDIS_PASSWORD": "env-secret"])
        let configuration = try #require(options.redis.configuration())
        #expect(configuration.endpoints == [.init(host: "10.1.2.3", port: 7000), .init(unixSocketPath: "/run/redis.sock")])
        #expect(configuration.keyPrefix == "tenant-a:" && configuration.database == 3)
        #expect(configuration.credentials == .init(username: "tenant-a", password: "from-file-secret"))
        #expect(configuration.tls == .init(caFile: "/etc/ca.pem", serverName: "redis.internal"))
        #expect(configuration.lookupBudget == .milliseconds(120) && configuration.commandTimeout == .milliseconds(300))
        #expect(configuration.topology == .independentNodes)
        // The environment's password when no file gives one; a cluster from the environment too
        let fromEnvironment = try await ServerOptions.parsed([], environment: [
            "THUMBNAIL_REDIS": "127.0.0.1:7000, 127.0.0.1:7001", "THUMBNAIL_REDIS_CLUSTER": "1",
            "THUMBNAIL_REDIS_PASSWORD": "env-secret", "THUMBNAIL_REDIS_REPLICA_READS": "yes",
        ])
        let cluster = try #require(fromEnvironment.redis.configuration())
        #expect(cluster.credentials == .init(password: "env-secret"))
        #expect(cluster.topology == .cluster(readsFromReplicas: true) && cluster.endpoints.count == 2)
        // No flag takes a password; a user needs one; a cluster has database 0 only
        for arguments in [
            ["--redis", "h:1", "--redis-password", "x"], ["--redis", "h:1", "--redis-user", "u"],
            ["--redis", "h:1", "--redis-cluster", "--redis-db", "2"], ["--redis-prefix", "a{b}"],
            ["--redis", "h:1", "--redis-tls-cert", "c.pem"],
        ] {
            await #expect(throws: UsageError.self, "\(arguments)") { try await ServerOptions.parsed(arguments, environment: [:]) }
        }
        // Nothing prints the secret
        var dumped = ""
        dump(options, to: &dumped)
        #expect(!dumped.contains("from-file-secret") && !"\(configuration)".contains("from-file-secret"))
    }

    @Test("two tenants on one Redis, each with its own ACL user and prefix: both served and shared across servers, keys apart; a wrong password stops the server at start-up")
    func tenants() throws {
        let harness = try ServerHarness()
        try harness.serve(try TestImages.gradient(width: 200, height: 150, as: .jpeg), as: "photo.jpg")
        try harness.startOrigin()
        try harness.startRedis([
            "--requirepass", "admin-secret",
            "--user", "tenant-a", "on", ">a-secret", "~tenant-a:*", "+@all",
            "--user", "tenant-b", "on", ">b-secret", "~tenant-b:*", "+@all",
        ])
        let redis = ["--allow-unsigned", "--redis", "127.0.0.1:\(harness.redisPort)"]
        let path = "/insecure/rs:fill:60:60/plain/\(harness.origin)/photo.jpg@png"
        for tenant in ["a", "b"] {
            let passwordFile = harness.root.appendingPathComponent("\(tenant).password")
            try "\(tenant)-secret\n".write(to: passwordFile, atomically: true, encoding: .utf8)
            try harness.startAnotherServer(redis + [
                "--redis-user", "tenant-\(tenant)", "--redis-password-file", passwordFile.path, "--redis-prefix", "tenant-\(tenant):",
            ])
            #expect(try harness.get(path).status == 200)
        }
        // The origin was asked once per tenant: no sharing across tenants
        #expect(harness.originRequests == 2)
        // Wait (at most 5 s) for the background result writes: each tenant's keys under its prefix only
        for _ in 0..<100 where try harness.redisKeyCount(password: "admin-secret") < 4 { Thread.sleep(forTimeInterval: 0.05) }
        for tenant in ["a", "b"] {
            let keys = try harness.redisCommand(["--scan", "--pattern", "tenant-\(tenant):*"], password: "admin-secret")
                .split(whereSeparator: \.isNewline)
            #expect(keys.count == 2, "tenant \(tenant): \(keys)")
        }
        #expect(try harness.redisKeyCount(password: "admin-secret") == 4)
        // A second server of tenant a (password from the environment) is served from the tier
        try harness.startAnotherServer(redis + ["--redis-user", "tenant-a", "--redis-prefix", "tenant-a:"], environment: ["THUMBNAIL_REDIS_PASSWORD": "a-secret"])
        #expect(try harness.get(path).headers[.xCache] == "hit-result-redis")
        #expect(harness.originRequests == 2)
        // A wrong password: the server stops at start-up with the reason, and never prints the password
        let (status, output) = try harness.runServerToExit(
            redis + ["--redis-user", "tenant-a", "--redis-prefix", "tenant-a:"],
            environment: ["THUMBNAIL_REDIS_PASSWORD": "not-the-password"], timeout: 10
        )
        #expect(status == 1)
        #expect(output.contains("authentication failed"))
        #expect(!output.contains("not-the-password"))
    }

    @Test("a Redis that does not know AUTH (renamed): the server stops naming the failure; the password, from the environment or a file, nowhere")
    func renamedAuth() throws {
        let harness = try ServerHarness()
        // Redis 7 answers with the command's arguments quoted: ERR unknown command 'AUTH', with args beginning with: 'tenant' 'hunter2secret'
        try harness.startRedis(["--rename-command", "AUTH", ""])
        let passwordFile = harness.root.appendingPathComponent("tenant.password")
        try "hunter2secret\n".write(to: passwordFile, atomically: true, encoding: .utf8)
        let redis = ["--redis", "127.0.0.1:\(harness.redisPort)", "--redis-user", "tenant"]
        for (arguments, environment) in [
            (redis, ["THUMBNAIL_REDIS_PASSWORD": "hunter2secret"]), (redis + ["--redis-password-file", passwordFile.path], [:]),
        ] {
            let (status, output) = try harness.runServerToExit(arguments, environment: environment, timeout: 10)
            #expect(status == 1)
            #expect(output.contains("authentication failed: ERR: the server does not know AUTH"), "\(output)")
            #expect(!output.contains("hunter2secret") && !output.contains("'tenant'"), "\(output)")
        }
    }
}
