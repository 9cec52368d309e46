import Foundation
import Testing
@testable import AsyncWebImage

@Suite("HTTPAge", .timeLimit(.minutes(1)))
struct HTTPAgeTests {
    @Test("Age is delta-seconds: anything else is ignored (RFC 9111 §5.1, cache-tests age-parse)")
    func values() {
        #expect(HTTPAge.seconds(["7200"]) == 7200)
        #expect(HTTPAge.seconds(["2147483647"]) == 2_147_483_647)
        #expect(HTTPAge.seconds(["2147483649"]) == 2_147_483_648)
        for invalid in ["abc", "-7200", "7200.0", "", "7200 s", "0x10"] {
            #expect(HTTPAge.seconds([invalid]) == nil, "\(invalid)")
        }
        #expect(HTTPAge.seconds([]) == nil)
    }

    @Test("a list-based Age counts by its first member, on one line or two")
    func lists() {
        #expect(HTTPAge.seconds(["7200, 0"]) == 7200)
        #expect(HTTPAge.seconds(["0, 7200"]) == 0)
        #expect(HTTPAge.seconds(["7200", "0"]) == 7200)
        #expect(HTTPAge.seconds(["0", "7200"]) == 0)
    }

    @Test("parameters of the structured-field Integer are ignored, not the value")
    func parameters() {
        #expect(HTTPAge.seconds(["7200;foo=bar"]) == 7200)
        #expect(HTTPAge.seconds(["7200;foo=111"]) == 7200)
        #expect(HTTPAge.seconds(["7200x;foo=1"]) == nil)
    }

    @Test("the initial age: apparent age against Age plus the response delay (§4.2.3)")
    func initialAge() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        // Date 10 s before the response, Age 5, 2 s on the way: apparent age 10 wins.
        #expect(HTTPAge.initialAge(date: now.addingTimeInterval(-10), age: 5, requestTime: now.addingTimeInterval(-2), responseTime: now) == 10)
        // Age 30 plus the 2 s delay wins over the apparent age.
        #expect(HTTPAge.initialAge(date: now.addingTimeInterval(-10), age: 30, requestTime: now.addingTimeInterval(-2), responseTime: now) == 32)
        // A Date in the future gives no negative age.
        #expect(HTTPAge.initialAge(date: now.addingTimeInterval(600), age: nil, requestTime: now, responseTime: now) == 0)
        #expect(HTTPAge.fieldValue(3.99) == "3")
        #expect(HTTPAge.fieldValue(1e12) == "2147483648")
    }
}
