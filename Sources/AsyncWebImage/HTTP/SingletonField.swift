import HTTPTypes

/// What a response says in a singleton field — one that RFC 9110 §5.5 allows
/// once per message (`Expires`, `Date`, `Age`, `ETag`, `Last-Modified`) — as
/// the cache and the validators read it.
///
/// `HTTPFields`' subscript joins a field repeated over several lines with
/// ", " (RFC 9110 §5.3), which is right for list fields (`Cache-Control`,
/// `Vary`) and meaningless for a singleton: two `Expires` lines become one
/// string that is no date. A singleton is read here instead, once:
/// - repeated with the same value (an origin and a proxy that both add it),
///   it is that value: nothing is ambiguous;
/// - repeated with different values, it is `conflicting`, which each
///   reader treats as an invalid value of that field (RFC 9111 §4.2.1: "either
///   the first occurrence should be used or the response should be
///   considered stale" — the cache chooses stale, the safe side).
enum SingletonField: Equatable, Sendable {
    /// The response has no such field.
    case absent
    /// The field's one value (every line that repeats it says the same).
    case value(String)
    /// Lines that disagree.
    case conflicting

    /// The value, nil when absent or conflicting.
    var value: String? {
        if case .value(let value) = self { return value }
        return nil
    }
}

extension HTTPFields {
    /// The singleton field `name`, read as `SingletonField` says.
    func singleton(_ name: HTTPField.Name) -> SingletonField {
        let values = self[values: name]
        guard let first = values.first?.trimmingSpaces else { return .absent }
        return values.dropFirst().allSatisfy { $0.trimmingSpaces == first } ? .value(first) : .conflicting
    }
}
