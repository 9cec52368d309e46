import Foundation
import Testing
@testable import AsyncWebImage

@Suite("HTTPDate", .timeLimit(.minutes(1)))
struct HTTPDateTests {
    /// 1994-11-06 08:49:37 UTC, the RFC's example.
    static let example = Date(timeIntervalSince1970: 784_111_777)

    @Test("the three forms of RFC 9110 §5.6.7 name the same instant")
    func threeForms() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == Self.example)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: Date(timeIntervalSince1970: 1_700_000_000)) == Self.example)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == Self.example)
    }

    @Test("formatting gives the IMF-fixdate that parses back, and matches POSIX gmtime")
    func roundTrip() {
        #expect(HTTPDate.format(Self.example) == "Sun, 06 Nov 1994 08:49:37 GMT")
        for seconds in [0, 951_782_400, 1_709_164_800, 4_102_444_799] {
            let date = Date(timeIntervalSince1970: Double(seconds))
            #expect(HTTPDate.parse(HTTPDate.format(date)) == date)
            var time = time_t(seconds)
            var parts = tm()
            gmtime_r(&time, &parts)
            #expect(HTTPDate.format(date).contains(" \(parts.tm_year + 1900) "))
        }
    }

    @Test("a two-digit year more than 50 years ahead is read in the past century")
    func twoDigitYears() {
        let now = Date(timeIntervalSince1970: 1_700_000_000) // 2023
        #expect(HTTPDate.parse("Monday, 01-Jan-24 00:00:00 GMT", now: now).map(HTTPDate.format) == "Mon, 01 Jan 2024 00:00:00 GMT")
        #expect(HTTPDate.parse("Friday, 01-Jan-99 00:00:00 GMT", now: now).map(HTTPDate.format) == "Fri, 01 Jan 1999 00:00:00 GMT")
    }

    @Test("the grammar is read exactly: spacing, separators, digit counts and the zone (cache-tests expires-parse)")
    func strictShapes() {
        for text in [
            "Thu, 18  Aug  2050 02:01:18 GMT", "Thu, 18-Aug-2050 02:01:18 GMT", "Thu, 18 Aug 2050 02.01.18 GMT",
            "Thu, 18 Aug 2050 2:01:18 GMT", "Thu, 18 Aug 2050 02:01:18 UTC", "Thu, 18 Aug 2050 02:01:18 AEST",
            "Thu, 18 Aug 50 02:01:18 GMT", "Thu 18 Aug 2050 02:01:18 GMT", "Thu,18 Aug 2050 02:01:18 GMT",
            "Thu Aug 8 02:01:18 2050", "Thu  Aug  8 02:01:18 2050", "Thursday, 18-Aug-2050 02:01:18 GMT",
            "Thursday,18-Aug-50 02:01:18 GMT", "Thu, 18-Aug-50 02:01:18 GMT", "Thursday, 18 Aug 50 02:01:18 GMT",
            "Thu, 18 Aug 2050 02:01:18 GMT,", "Xyz, 18 Aug 2050 02:01:18 GMT",
        ] {
            #expect(HTTPDate.parse(text) == nil, "\(text)")
        }
    }

    @Test("letter case is forgiven; the three forms of one instant agree; leading and trailing spaces are no part of the value")
    func caseAndForms() {
        let expected = HTTPDate.parse("Thu, 18 Aug 2050 02:01:18 GMT")
        #expect(expected != nil)
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        for text in [
            "THU, 18 Aug 2050 02:01:18 GMT", "Thu, 18 AUG 2050 02:01:18 GMT", "Thu, 18 Aug 2050 02:01:18 gMT",
            "Thursday, 18-Aug-50 02:01:18 GMT", "Thu Aug 18 02:01:18 2050", " Thu, 18 Aug 2050 02:01:18 GMT ",
        ] {
            #expect(HTTPDate.parse(text, now: now) == expected, "\(text)")
        }
        #expect(HTTPDate.parse("Mon Aug  8 02:01:18 2050") == HTTPDate.parse("Mon, 08 Aug 2050 02:01:18 GMT"))
        // Dates past 2038 and far ahead are instants like any other.
        #expect(HTTPDate.parse("Sun, 21 Nov 2286 04:46:39 GMT").map(HTTPDate.format) == "Sun, 21 Nov 2286 04:46:39 GMT")
        #expect(HTTPDate.parse("Tue, 19 Jan 2038 14:14:08 GMT") == Date(timeIntervalSince1970: 2_147_523_248))
    }

    @Test("anything else is not a date")
    func invalid() {
        for text in [
            "", "0", "-1", "tomorrow", "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 31 Feb 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
            "Sun Nov  6 08:49 1994", String(repeating: "Sun, ", count: 10_000),
        ] {
            #expect(HTTPDate.parse(text) == nil, "\(text.prefix(40))")
        }
    }
}
