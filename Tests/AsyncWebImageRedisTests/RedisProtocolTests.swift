import NIOCore
import Testing
@testable import AsyncWebImageRedis

/// The RESP reader, the hash slots and the redirections, without a server.
@Suite("RESP, hash slots and redirections")
struct RedisProtocolTests {
    private func decode(_ text: String, maxBulkBytes: Int = 1 << 20) throws -> [RedisReply] {
        var decoder = RESPDecoder(maxBulkBytes: maxBulkBytes)
        var buffer = ByteBuffer(string: text)
        var replies: [RedisReply] = []
        // Bounded by the input: each reply consumes bytes.
        while let reply = try decoder.decode(buffer: &buffer) { replies.append(reply) }
        return replies
    }

    @Test("every RESP2 type, nested arrays, nulls, binary bulk strings")
    func types() throws {
        let replies = try decode("+OK\r\n-ERR no\r\n:-42\r\n$4\r\na\r\nb\r\n$-1\r\n*-1\r\n*2\r\n*1\r\n:1\r\n$0\r\n\r\n")
        #expect(replies == [
            .status("OK"), .error("ERR no"), .integer(-42), .bulk(ByteBuffer(string: "a\r\nb")), .null, .null,
            .array([.array([.integer(1)]), .bulk(ByteBuffer())]),
        ])
    }

    @Test("a reply cut anywhere is not read until whole, then read once")
    func partial() throws {
        let whole = Array("*2\r\n$5\r\nhello\r\n:7\r\n".utf8)
        for cut in 0..<whole.count {
            var decoder = RESPDecoder(maxBulkBytes: 100)
            var buffer = ByteBuffer(bytes: whole[..<cut])
            #expect(try decoder.decode(buffer: &buffer) == nil)
            buffer.writeBytes(whole[cut...])
            #expect(try decoder.decode(buffer: &buffer) == .array([.bulk(ByteBuffer(string: "hello")), .integer(7)]))
            #expect(buffer.readableBytes == 0)
        }
    }

    @Test("a bulk string over the bound is refused by its header, before its bytes arrive")
    func bound() throws {
        var decoder = RESPDecoder(maxBulkBytes: 1000)
        var buffer = ByteBuffer(string: "$268435456\r\n")
        #expect(throws: RESPDecoder.Refusal.bulkTooLarge(268_435_456)) { try decoder.decode(buffer: &buffer) }
        var atBound = ByteBuffer(string: "$1000\r\n" + String(repeating: "x", count: 1000) + "\r\n")
        #expect(try decoder.decode(buffer: &atBound)?.bulkBytes?.count == 1000)
    }

    @Test("malformed input and oversized arrays or lines are refused")
    func malformed() throws {
        for text in ["?x\r\n", ":12a\r\n", "$3\r\nabcX\r\n", ":99999999999999999999\r\n", "+a\rb\r\n"] {
            #expect(throws: RESPDecoder.Refusal.self, "\(text)") { try decode(text) }
        }
        var decoder = RESPDecoder(maxBulkBytes: 10)
        decoder.maxArrayCount = 4
        var array = ByteBuffer(string: "*5\r\n")
        #expect(throws: RESPDecoder.Refusal.arrayTooLarge(5)) { try decoder.decode(buffer: &array) }
        var deep = ByteBuffer(string: String(repeating: "*1\r\n", count: 20))
        #expect(throws: RESPDecoder.Refusal.self) { try decoder.decode(buffer: &deep) }
        decoder.maxLineBytes = 16
        var line = ByteBuffer(string: "+" + String(repeating: "a", count: 40))
        #expect(throws: RESPDecoder.Refusal.lineTooLong) { try decoder.decode(buffer: &line) }
    }

    @Test("commands are written as arrays of bulk strings, binary-safe")
    func commands() {
        var buffer = ByteBuffer()
        RESPCommand.write([Array("SET".utf8), [0, 13, 10], []], to: &buffer)
        #expect(Array(buffer.readableBytesView) == Array("*3\r\n$3\r\nSET\r\n$3\r\n".utf8) + [0, 13, 10] + Array("\r\n$0\r\n\r\n".utf8))
        #expect(RESPCommand.encodedCount([[Array("SET".utf8), [0, 13, 10], []]]) >= buffer.readableBytes)
    }

    @Test("hash slots: the specification's CRC16 check value, known slots, hash tags")
    func slots() {
        #expect(RedisKeySlot.crc16(Array("123456789".utf8)[...]) == 0x31C3)
        #expect(RedisKeySlot.slot(of: Array("foo".utf8)) == 12182)
        #expect(RedisKeySlot.slot(of: Array("{user1000}.following".utf8)) == RedisKeySlot.slot(of: Array("{user1000}.followers".utf8)))
        #expect(RedisKeySlot.slot(of: Array("foo{}{bar}".utf8)) == RedisKeySlot.slot(of: Array("foo{}{bar}".utf8)))
        #expect(RedisKeySlot.hashedPart(of: Array("foo{}{bar}".utf8)) == Array("foo{}{bar}".utf8)[...])
        #expect(RedisKeySlot.hashedPart(of: Array("foo{{bar}}zap".utf8)) == Array("{bar".utf8)[...])
        #expect(RedisKeySlot.hashedPart(of: Array("foo{bar}{zap}".utf8)) == Array("bar".utf8)[...])
    }

    @Test("MOVED and ASK are parsed; other errors are not redirections")
    func redirects() {
        #expect(RedisRedirect(error: "MOVED 3999 127.0.0.1:6381") == RedisRedirect(kind: .moved, slot: 3999, endpoint: .init(host: "127.0.0.1", port: 6381)))
        #expect(RedisRedirect(error: "ASK 1 [::1]:7000")?.endpoint == .init(host: "::1", port: 7000))
        #expect(RedisRedirect(error: "ASK 1 [::1]:7000")?.kind == .ask)
        for message in ["ERR wrong", "MOVED 99999 h:1", "MOVED 1 h", "CLUSTERDOWN The cluster is down", "MOVED 1 :80"] {
            #expect(RedisRedirect(error: message) == nil, "\(message)")
        }
    }

    @Test("a CLUSTER SHARDS reply (slots as integers, a failed replica) and a CLUSTER SLOTS reply make the same map")
    func slotMaps() throws {
        func node(_ port: Int, _ role: String, _ health: String = "online") -> RedisReply {
            .array(["id", "x\(port)", "port", "\(port)", "ip", "127.0.0.1", "endpoint", "127.0.0.1", "role", role, "health", health].enumerated().map { index, text in
                index == 3 ? .integer(Int64(port)) : .bulk(ByteBuffer(string: text))
            })
        }
        let shards = RedisReply.array([
            .array([.bulk(ByteBuffer(string: "slots")), .array([.integer(0), .integer(5460)]), .bulk(ByteBuffer(string: "nodes")),
                    .array([node(7000, "master"), node(7003, "replica")])]),
            .array([.bulk(ByteBuffer(string: "slots")), .array([.integer(5461), .integer(10922)]), .bulk(ByteBuffer(string: "nodes")),
                    .array([node(7004, "replica", "failed"), node(7001, "master")])]),
            .array([.bulk(ByteBuffer(string: "slots")), .array([.integer(10923), .integer(16383)]), .bulk(ByteBuffer(string: "nodes")),
                    .array([node(7002, "master")])]),
        ])
        let map = try #require(ClusterSlotMap(shardsReply: shards, tls: false))
        #expect(map.assignedSlots == RedisKeySlot.count)
        #expect(map.shard(for: 0)?.master.port == 7000 && map.shard(for: 0)?.replicas.map(\.port) == [7003])
        #expect(map.shard(for: 5461)?.master.port == 7001 && map.shard(for: 5461)?.replicas.isEmpty == true)
        #expect(map.shard(for: 16383)?.master.port == 7002)
        func address(_ port: Int) -> RedisReply { .array([.bulk(ByteBuffer(string: "127.0.0.1")), .integer(Int64(port)), .bulk(ByteBuffer(string: "id"))]) }
        let slots = RedisReply.array([
            .array([.integer(0), .integer(5460), address(7000), address(7003)]),
            .array([.integer(5461), .integer(10922), address(7001)]),
            .array([.integer(10923), .integer(16383), address(7002)]),
        ])
        #expect(ClusterSlotMap(slotsReply: slots) == map)
        var patched = map
        patched.assign(100, to: .init(host: "127.0.0.1", port: 7002))
        #expect(patched.shard(for: 100)?.master.port == 7002 && patched.shard(for: 101)?.master.port == 7000)
        patched.assign(101, to: .init(host: "127.0.0.1", port: 7009))
        #expect(patched.shard(for: 101)?.master.port == 7009)
        #expect(ClusterSlotMap(shardsReply: .error("ERR unknown subcommand"), tls: false) == nil)
    }
}
