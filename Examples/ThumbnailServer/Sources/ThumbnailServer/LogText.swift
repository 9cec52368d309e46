/// The one escaping of text the server writes into a log record or a
/// one-line answer: whatever bytes a client sent (a percent-decoded host, a
/// path, an upstream's message), the record stays one line, and nothing in
/// it drives a terminal.
///
/// Control characters become visible escapes — `\n`, `\r`, `\t`, and
/// `\u{1B}` for the rest of C0, DEL and C1 (ESC and CSI start terminal
/// sequences) — as do the Unicode line and paragraph separators and the
/// bidirectional overrides (which reorder what a viewer shows). A backslash
/// is doubled, so an escape in the output always stands for the character
/// it names and never for text a client sent.
enum LogText {
    /// `text` with its control characters escaped.
    static func escaped(_ text: some StringProtocol) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x5C: output += "\\\\"
            case 0x0A: output += "\\n"
            case 0x0D: output += "\\r"
            case 0x09: output += "\\t"
            case 0x00..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:
                output += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output
    }

    /// A metadata value as `key=value` shows it: escaped, and quoted (with
    /// `\"` inside) when it holds a space, `=` or `"` or is empty, so that
    /// its text cannot pose as another field of the record.
    static func field(_ text: some StringProtocol) -> String {
        let escaped = escaped(text)
        guard escaped.isEmpty || escaped.utf8.contains(where: { $0 == 0x20 || $0 == 0x3D || $0 == 0x22 }) else { return escaped }
        var quoted = "\""
        for character in escaped.unicodeScalars {
            if character == "\"" { quoted += "\\\"" } else { quoted.unicodeScalars.append(character) }
        }
        return quoted + "\""
    }
}
