/// A cluster node's answer that a key lives elsewhere: `MOVED` (the slot
/// has a new owner: update the map) or `ASK` (this one key is mid-migration:
/// ask the other node once, after `ASKING`).
struct RedisRedirect: Sendable, Equatable {
    /// Which kind.
    enum Kind: Sendable, Equatable {
        case moved
        case ask
    }

    let kind: Kind
    let slot: Int
    let endpoint: RedisStore.Endpoint

    init(kind: Kind, slot: Int, endpoint: RedisStore.Endpoint) {
        self.kind = kind
        self.slot = slot
        self.endpoint = endpoint
    }

    /// Parses `MOVED 3999 127.0.0.1:6381` or `ASK …`; `nil` for any other error.
    init?(error message: String) {
        let parts = message.split(separator: " ")
        guard parts.count == 3, let slot = Int(parts[1]), (0..<RedisKeySlot.count).contains(slot),
              let endpoint = RedisStore.Endpoint(redisAddress: parts[2]) else { return nil }
        switch parts[0] {
        case "MOVED": kind = .moved
        case "ASK": kind = .ask
        default: return nil
        }
        self.slot = slot
        self.endpoint = endpoint
    }
}
