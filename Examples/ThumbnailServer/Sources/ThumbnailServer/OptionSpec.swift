/// One setting of the server: how it is spelled on the command line, in
/// the environment and in a configuration file, its default, its help, and
/// how its value is applied. ``ServerOptions/table`` lists them all; the
/// parser, `--help` and the README's table are made from that list.
struct OptionSpec: Sendable {
    /// What the setting takes.
    enum Kind: Sendable, Equatable {
        /// One value (`--port 8080`), shown as `placeholder`.
        case value(_ placeholder: String)
        /// A switch: `--allow-loopback`, `THUMBNAIL_ALLOW_LOOPBACK=1`, `"allowLoopback": true`;
        /// `true`, `false`, `1`, `0`, `yes` or `no` from every source, and nothing else.
        case flag
        /// Values that add up: the flag repeated, or a comma-separated list
        /// in the environment, or a JSON array.
        case list(_ placeholder: String)
    }

    /// What a source gave for a setting: the words it holds, which the
    /// setting's one parser reads whatever the source.
    enum Value: Sendable {
        /// One value as text: a flag's value, a variable, a file's string,
        /// number or Boolean written as text.
        case text(String)
        /// A switch given bare on the command line (`--allow-loopback`).
        case present
        /// Values given one by one: a repeated flag, a file's array.
        case list([String])
    }

    /// Where the help groups it.
    enum Section: String, Sendable, CaseIterable {
        case listening = "Listening"
        case signing = "Signed URLs"
        case upstreams = "Upstreams"
        case limits = "Limits"
        case caching = "Caching"
        case observability = "Operating"
    }

    /// The configuration key, camel-cased (`maxDownloads`): the flag is its
    /// dashed form (`--max-downloads`), and a configuration file names it so.
    let key: String
    /// Environment variables, the first one documented (`THUMBNAIL_MAX_DOWNLOADS`);
    /// later ones are older or shared spellings read when the first is unset.
    let environment: [String]
    let kind: Kind
    /// The default as the help shows it.
    let defaultValue: String
    let help: String
    let section: Section
    /// Whether a flag sets it; `false` for secrets, which a command line
    /// would show to every user of the machine.
    var onCommandLine = true
    /// Applies a value; throws an ``OptionValueError`` saying what it takes.
    let apply: @Sendable (Value, inout ServerOptions) throws -> Void

    /// `--max-downloads`.
    var flag: String {
        var dashed = ""
        for character in key {
            if character.isUppercase { dashed += "-" + character.lowercased() } else { dashed.append(character) }
        }
        return "--" + dashed
    }

    /// The flag with its placeholder, as the help shows it: `--port PORT`.
    var synopsis: String {
        switch kind {
        case .value(let placeholder), .list(let placeholder): "\(flag) \(placeholder)"
        case .flag: flag
        }
    }
}
