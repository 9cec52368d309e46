import Foundation

/// HTTP-date (RFC 9110 §5.6.7): the preferred IMF-fixdate
/// (`Sun, 06 Nov 1994 08:49:37 GMT`) and the two obsolete forms a recipient
/// must still read, RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and ANSI C's
/// asctime (`Sun Nov  6 08:49:37 1994`). Parsed by hand: no locale, no
/// formatter, bounded work for any input.
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The instant `text` names, or `nil` when it is none of the three forms.
    ///
    /// - Parameters:
    ///   - text: The field value.
    ///   - now: Today, for the two-digit years of RFC 850 dates (a year more
    ///     than 50 years ahead is read as the same two digits in the past century).
    static func parse(_ text: String, now: Date = Date()) -> Date? {
        guard text.utf8.count <= 64 else { return nil }
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        if let comma = tokens.first, comma.hasSuffix(",") {
            // IMF-fixdate: "Sun," "06" "Nov" "1994" "08:49:37" "GMT"
            if tokens.count == 6, tokens[5] == "GMT", let day = number(tokens[1], digits: 2),
               let month = month(tokens[2]), let year = number(tokens[3], digits: 4) {
                return date(year: year, month: month, day: day, time: tokens[4])
            }
            // RFC 850: "Sunday," "06-Nov-94" "08:49:37" "GMT"
            if tokens.count == 4, tokens[3] == "GMT" {
                let parts = tokens[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
                guard parts.count == 3, let day = number(parts[0], digits: 2), let month = month(parts[1]),
                      let yy = number(parts[2], digits: 2) else { return nil }
                let nowSeconds = Int(now.timeIntervalSince1970.rounded(.down))
                let thisYear = civil(fromDays: nowSeconds >= 0 ? nowSeconds / 86_400 : (nowSeconds - 86_399) / 86_400).year
                var year = (thisYear / 100) * 100 + yy
                if year > thisYear + 50 { year -= 100 }
                return date(year: year, month: month, day: day, time: tokens[2])
            }
            return nil
        }
        // asctime: "Sun" "Nov" "6" "08:49:37" "1994"
        guard tokens.count == 5, tokens[0].count == 3, let month = month(tokens[1]),
              let day = number(tokens[2], digits: 1...2), let year = number(tokens[4], digits: 4) else { return nil }
        return date(year: year, month: month, day: day, time: tokens[3])
    }

    /// Formats `date` as an IMF-fixdate.
    static func format(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let rest = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][((days % 7) + 7) % 7]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekday), \(two(day)) \(months[month - 1].capitalized) \(year) \(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60)) GMT"
    }

    private static func month(_ token: String) -> Int? {
        guard token.count == 3 else { return nil }
        return months.firstIndex(of: token.lowercased()).map { $0 + 1 }
    }

    private static func number(_ token: String, digits: Int) -> Int? {
        number(token, digits: digits...digits)
    }

    private static func number(_ token: String, digits: ClosedRange<Int>) -> Int? {
        guard digits.contains(token.utf8.count), token.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int(token)
    }

    private static func date(year: Int, month: Int, day: Int, time: String) -> Date? {
        let parts = time.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let hour = number(parts[0], digits: 2), let minute = number(parts[1], digits: 2),
              let second = number(parts[2], digits: 2), hour < 24, minute < 60, second <= 60,
              (1...31).contains(day), day <= daysIn(month: month, year: year) else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3600 + minute * 60 + second))
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
    /// `days_from_civil`).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The inverse of ``daysFromCivil(year:month:day:)``.
    private static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
