public import Foundation

extension HTTPResponseHead {
    /// The instant an HTTP-date field value names (`Date`, `Expires`,
    /// `Last-Modified`), or `nil` when it names none.
    ///
    /// Reads the three forms RFC 9110 §5.6.7 says a recipient must accept:
    /// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), RFC 850
    /// (`Sunday, 06-Nov-94 08:49:37 GMT`, its two-digit year taken as at most
    /// 50 years ahead of today) and asctime (`Sun Nov  6 08:49:37 1994`),
    /// exactly as the grammar spells them but for letter case. It is the
    /// parser the loader's cache reads these fields with, so a server that
    /// decides about the same responses (whether to keep an origin's image,
    /// for how long) reads them as the loader does. Per RFC 9111 §5.3, an
    /// `Expires` that does not parse means "already expired".
    ///
    /// ```swift
    /// let expires = fields[.expires].flatMap { HTTPResponseHead.date(fromFieldValue: $0) }
    /// ```
    ///
    /// - Parameter fieldValue: The field's value; leading and trailing spaces
    ///   and tabs are ignored.
    /// - Returns: The instant, or `nil` for anything that is not one of the
    ///   three forms (including values longer than 64 bytes).
    public static func date(fromFieldValue fieldValue: String) -> Date? {
        HTTPDate.parse(fieldValue)
    }
}
