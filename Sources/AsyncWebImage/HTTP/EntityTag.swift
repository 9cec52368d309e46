/// Entity tags (RFC 9110 §8.8.3) as the cache compares them. A tag is kept
/// and sent back exactly as the origin wrote it — quoted or not, weak
/// prefix as spelt — so an origin that compares `If-None-Match` byte for
/// byte (many do) finds its own value; only the comparisons below read it.
enum EntityTag {
    /// Whether `tag` is weak (`W/"…"`; the prefix is case-sensitive).
    static func isWeak(_ tag: String) -> Bool { tag.hasPrefix("W/") }

    /// `tag` without its weakness indicator.
    static func opaqueTag(_ tag: String) -> Substring {
        isWeak(tag) ? tag.dropFirst(2) : Substring(tag)
    }

    /// The comparison of RFC 9110 §8.8.3.2: strong (both tags strong and
    /// equal) or weak (equal once the weakness indicators are dropped).
    static func matches(_ lhs: String, _ rhs: String, weakly: Bool) -> Bool {
        if weakly { return opaqueTag(lhs) == opaqueTag(rhs) }
        return !isWeak(lhs) && !isWeak(rhs) && lhs == rhs
    }
}
