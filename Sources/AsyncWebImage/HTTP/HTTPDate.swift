import Foundation

/// HTTP-date (RFC 9110 §5.6.7): the preferred IMF-fixdate
/// (`Sun, 06 Nov 1994 08:49:37 GMT`) and the two obsolete forms a recipient
/// must still read, RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and ANSI C's
/// asctime (`Sun Nov  6 08:49:37 1994`). Parsed by hand: no locale, no
/// formatter, bounded work for any input.
///
/// The grammar is read exactly: one space where it has one (two in
/// asctime's `Nov  6`), two-digit days, hours, minutes and seconds, a
/// four-digit year in the two current forms, `GMT` and no other zone, the
/// separators it names. Anything else is not a date, so an `Expires` of
/// that shape means "already expired" (RFC 9111 §5.3) rather than a guess.
/// Only letter case is forgiven (day and month names, `GMT`): the grammar
/// spells them in one case, but a misspelt case names the same instant
/// without doubt, and RFC 9110 §5.6.7 encourages robust parsing where that
/// is so.
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let shortDays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    private static let longDays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    /// The instant `text` names, or `nil` when it is none of the three forms.
    ///
    /// - Parameters:
    ///   - text: The field value (leading and trailing spaces and tabs, which
    ///     are not part of a field value, are ignored).
    ///   - now: Today, for the two-digit years of RFC 850 dates (a year more
    ///     than 50 years ahead is read as the same two digits in the past century).
    static func parse(_ text: String, now: Date = Date()) -> Date? {
        guard text.utf8.count <= 64 else { return nil }
        let value = Array(text.trimmingSpaces.utf8)
        if value.count == 29, let date = imfFixdate(value) { return date }
        if value.count == 24, let date = asctime(value) { return date }
        return rfc850(value, now: now)
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`: every position fixed.
    private static func imfFixdate(_ value: [UInt8]) -> Date? {
        guard let weekday = word(value, 0..<3), shortDays.contains(weekday), value[3] == comma, value[4] == space,
              let day = digits(value, 5..<7), value[7] == space, let month = month(value, 8..<11), value[11] == space,
              let year = digits(value, 12..<16), value[16] == space, let time = time(value, 17),
              value[25] == space, word(value, 26..<29) == "gmt" else { return nil }
        return date(year: year, month: month, day: day, time: time)
    }

    /// `Sun Nov  6 08:49:37 1994`: the day is two digits or a space and one digit.
    private static func asctime(_ value: [UInt8]) -> Date? {
        guard let weekday = word(value, 0..<3), shortDays.contains(weekday), value[3] == space,
              let month = month(value, 4..<7), value[7] == space else { return nil }
        let day: Int?
        if value[8] == space { day = digits(value, 9..<10) } else { day = digits(value, 8..<10) }
        guard let day, value[10] == space, let time = time(value, 11), value[19] == space,
              let year = digits(value, 20..<24) else { return nil }
        return date(year: year, month: month, day: day, time: time)
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`: a full day name, then fixed positions.
    private static func rfc850(_ value: [UInt8], now: Date) -> Date? {
        guard let comma = value.firstIndex(of: comma), comma >= 6, comma <= 9, value.count == comma + 24,
              let weekday = word(value, 0..<comma), longDays.contains(weekday) else { return nil }
        let start = comma + 2
        guard value[comma + 1] == space, let day = digits(value, start..<start + 2), value[start + 2] == dash,
              let month = month(value, start + 3..<start + 6), value[start + 6] == dash,
              let yy = digits(value, start + 7..<start + 9), value[start + 9] == space,
              let time = time(value, start + 10), value[start + 18] == space,
              word(value, start + 19..<start + 22) == "gmt" else { return nil }
        let nowSeconds = Int(now.timeIntervalSince1970.rounded(.down))
        let thisYear = civil(fromDays: nowSeconds >= 0 ? nowSeconds / 86_400 : (nowSeconds - 86_399) / 86_400).year
        var year = (thisYear / 100) * 100 + yy
        if year > thisYear + 50 { year -= 100 }
        return date(year: year, month: month, day: day, time: time)
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

    private static let space = UInt8(ascii: " ")
    private static let comma = UInt8(ascii: ",")
    private static let dash = UInt8(ascii: "-")
    private static let colon = UInt8(ascii: ":")

    /// The ASCII letters at `range`, lower-cased; nil if any is not a letter.
    private static func word(_ value: [UInt8], _ range: Range<Int>) -> String? {
        guard range.upperBound <= value.count else { return nil }
        var letters: [UInt8] = []
        for byte in value[range] {
            let lower = byte | 0x20
            guard lower >= UInt8(ascii: "a"), lower <= UInt8(ascii: "z") else { return nil }
            letters.append(lower)
        }
        return String(decoding: letters, as: UTF8.self)
    }

    private static func month(_ value: [UInt8], _ range: Range<Int>) -> Int? {
        word(value, range).flatMap { months.firstIndex(of: $0) }.map { $0 + 1 }
    }

    /// The decimal number of exactly the digits at `range`.
    private static func digits(_ value: [UInt8], _ range: Range<Int>) -> Int? {
        guard range.upperBound <= value.count, !range.isEmpty else { return nil }
        var number = 0
        for byte in value[range] {
            guard byte >= 48, byte <= 57 else { return nil }
            number = number * 10 + Int(byte - 48)
        }
        return number
    }

    /// `HH:MM:SS` at `start`, as seconds into the day.
    private static func time(_ value: [UInt8], _ start: Int) -> Int? {
        guard start + 8 <= value.count, let hour = digits(value, start..<start + 2), value[start + 2] == colon,
              let minute = digits(value, start + 3..<start + 5), value[start + 5] == colon,
              let second = digits(value, start + 6..<start + 8), hour < 24, minute < 60, second <= 60 else { return nil }
        return hour * 3600 + minute * 60 + second
    }

    private static func date(year: Int, month: Int, day: Int, time: Int) -> Date? {
        guard (1...31).contains(day), day <= daysIn(month: month, year: year) else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + time))
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
