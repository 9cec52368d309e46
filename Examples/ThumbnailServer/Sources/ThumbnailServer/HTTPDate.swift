import Foundation

/// HTTP dates (RFC 9110 §5.6.7) in their preferred form, IMF-fixdate:
/// `Sun, 06 Nov 1994 08:49:37 GMT`.
///
/// The obsolete forms (RFC 850, asctime) are not read: a cache reading an
/// `Expires` it cannot parse treats the response as already expired
/// (RFC 9111 §5.3), which is the safe reading for this server too.
enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The instant `text` names, or `nil` when it is not an IMF-fixdate.
    static func parse(_ text: some StringProtocol) -> Date? {
        // "Sun, 06 Nov 1994 08:49:37 GMT": fixed positions, 29 characters.
        let characters = Array(text.utf8)
        guard characters.count == 29, characters[3] == UInt8(ascii: ","), characters[4] == UInt8(ascii: " "),
              String(decoding: characters[25...], as: UTF8.self) == " GMT"
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in characters[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        let monthName = String(decoding: characters[8..<11], as: UTF8.self)
        guard let day = number(5..<7), let monthIndex = months.firstIndex(of: monthName), let year = number(12..<16),
              characters[7] == UInt8(ascii: " "), characters[11] == UInt8(ascii: " "), characters[16] == UInt8(ascii: " "),
              let hour = number(17..<19), characters[19] == UInt8(ascii: ":"), let minute = number(20..<22),
              characters[22] == UInt8(ascii: ":"), let second = number(23..<25),
              (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        let days = daysSinceEpoch(year: year, month: monthIndex + 1, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar
    /// (the civil-from-days inverse, by eras of 400 years).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
