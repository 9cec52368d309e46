import Foundation
import HTTPTypes

/// The `Age` field (RFC 9111 §5.1) and the age calculation of §4.2.3.
enum HTTPAge {
    /// The seconds an `Age` field says, from its lines as received; nil
    /// when it is absent or invalid (then a cache ignores it).
    ///
    /// - A list-based value (`7200, 0`, or two lines) counts by its first
    ///   member, the others discarded (§5.1).
    /// - The member is delta-seconds: digits only, saturating at 2^31. A
    ///   value with anything else (`abc`, `-7200`, `7200.0`) is invalid.
    /// - Parameters after a `;` (`7200;foo=bar`) are ignored: `Age` is an
    ///   Integer Item in the structured-field reading of HTTP fields
    ///   (RFC 9651, and the retrofit of existing fields to it), and an
    ///   Item's parameters never change its value. Reading `7200;foo=bar`
    ///   as absent would make an old response look new.
    static func seconds(_ lines: [String]) -> Int? {
        guard let line = lines.first else { return nil }
        let member = line.prefix { $0 != "," }.trimmingSpaces
        let value = member.prefix { $0 != ";" }
        guard value.utf8.count == member.utf8.count || member.dropFirst(value.count).hasPrefix(";") else { return nil }
        return CacheDirectiveList.deltaSeconds(String(value))
    }

    /// The `Age` seconds of a response head.
    static func seconds(in headers: HTTPFields) -> Int? {
        seconds(headers[values: .age])
    }

    /// The age of a stored response when it arrived (§4.2.3's
    /// `corrected_initial_age`), in seconds: the larger of its apparent age
    /// (the response time less its `Date`, never negative) and its `Age`
    /// plus the time the request took (`response_delay`, the time the
    /// response spent on the way that `Age` does not count yet).
    ///
    /// - Parameters:
    ///   - date: The response's `Date`, if valid (else the response time stands in: no apparent age).
    ///   - age: The response's `Age`, if valid.
    ///   - requestTime: When the request was sent.
    ///   - responseTime: When the response arrived.
    static func initialAge(date: Date?, age: Int?, requestTime: Date, responseTime: Date) -> Double {
        let apparentAge = max(0, responseTime.timeIntervalSince(date ?? responseTime))
        let responseDelay = max(0, responseTime.timeIntervalSince(requestTime))
        let correctedAgeValue = Double(age ?? 0) + responseDelay
        return max(apparentAge, correctedAgeValue)
    }

    /// The `Age` value a cache sends for a response of `currentAge`
    /// seconds: whole seconds, rounded down, at most 2^31 (§5.1).
    static func fieldValue(_ currentAge: Double) -> String {
        String(Int(min(max(0, currentAge), 2_147_483_648).rounded(.down)))
    }
}
