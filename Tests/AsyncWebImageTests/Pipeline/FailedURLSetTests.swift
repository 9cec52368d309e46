import Foundation
import HTTPTypes
import Testing
@testable import AsyncWebImage

@Suite("FailedURLSet: per identity, bounded, oldest forgotten first")
struct FailedURLSetTests {
    static func origin(_ url: String, token: String? = nil) -> FailedURLSet.Member {
        var request = DataRequest(url: URL(string: url)!)
        if let token { request.headers[.authorization] = "Bearer \(token)" }
        return ImageRequestKeys.Origin(url: url, variant: request.key.variant)
    }

    @Test("an identity is blocked alone: the same URL with other credentials or none is not")
    func perIdentity() {
        let set = FailedURLSet(capacity: 10)
        set.insert(Self.origin("https://a.example/x", token: "A"))
        #expect(set.contains(Self.origin("https://a.example/x", token: "A")))
        #expect(!set.contains(Self.origin("https://a.example/x", token: "B")))
        #expect(!set.contains(Self.origin("https://a.example/x")))
        #expect(set.containsAnyVariant(of: "https://a.example/x"))
        #expect(!set.containsAnyVariant(of: "https://a.example/y"))
    }

    @Test("remove, removeEveryVariant and removeAll unblock")
    func removal() {
        let set = FailedURLSet(capacity: 10)
        let a = Self.origin("https://a.example/x", token: "A")
        let b = Self.origin("https://a.example/x", token: "B")
        let other = Self.origin("https://a.example/y")
        for origin in [a, b, other] { set.insert(origin) }
        set.remove(a)
        #expect(!set.contains(a) && set.contains(b))
        set.removeEveryVariant(of: "https://a.example/x")
        #expect(!set.contains(b) && set.contains(other))
        #expect(set.count == 1)
        set.removeAll()
        #expect(set.count == 0 && !set.contains(other))
    }

    @Test("past capacity the oldest entries are forgotten; a re-inserted entry counts as new")
    func capacity() {
        let set = FailedURLSet(capacity: 3)
        let origins = (0..<5).map { Self.origin("https://a.example/\($0)") }
        set.insert(origins[0])
        set.insert(origins[1])
        set.insert(origins[2])
        set.insert(origins[0])  // refreshed: now the newest
        set.insert(origins[3])  // evicts 1, the oldest live entry
        #expect(set.count == 3)
        #expect(set.contains(origins[0]) && !set.contains(origins[1]) && set.contains(origins[2]) && set.contains(origins[3]))
        set.insert(origins[4])  // evicts 2
        #expect(!set.contains(origins[2]) && set.contains(origins[4]) && set.contains(origins[0]))
    }

    @Test("insert/remove churn stays bounded and correct")
    func churn() {
        let set = FailedURLSet(capacity: 4)
        let origins = (0..<50).map { Self.origin("https://a.example/\($0)") }
        for round in 0..<2_000 {
            let origin = origins[round % origins.count]
            set.insert(origin)
            if round % 3 == 0 { set.remove(origin) }
            #expect(set.count <= 4)
        }
        // The last four distinct survivors are the newest inserts not removed.
        let last = (1_996..<2_000).filter { $0 % 3 != 0 }.map { origins[$0 % origins.count] }
        #expect(last.allSatisfy { set.contains($0) })
    }
}
