/// One setting's value in the JSON configuration file, as the JSON wrote
/// it: the file's reading keeps the kind of each value (a `true` is not a
/// `1`), so that ``optionValue(named:)`` can hand the setting's parser the
/// same words the environment would give it.
enum ConfigurationFileValue: Decodable, Sendable {
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case strings([String])
    /// `null`, an object, or an array of anything but strings.
    case other

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // JSONDecoder keeps the kinds apart: `true` does not decode as a
        // number, nor `1` as a Boolean.
        if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([String].self) {
            self = .strings(value)
        } else {
            self = .other
        }
    }

    /// The value as the words a setting's parser reads: a string as it is,
    /// a Boolean as `true` or `false`, a number as written in decimal (`-1`,
    /// `0.5`: no parser but a number's takes them), an array of strings as
    /// a list.
    ///
    /// - Throws: ``UsageError`` naming the setting (`name`) for anything else.
    func optionValue(named name: String) throws(UsageError) -> OptionSpec.Value {
        switch self {
        case .bool(let value): .text(value ? "true" : "false")
        case .integer(let value): .text(String(value))
        case .number(let value): .text(String(value))
        case .string(let value): .text(value)
        case .strings(let values): .list(values)
        case .other: throw UsageError("\(name): expects a string, a number, true or false, or a list of strings")
        }
    }
}
