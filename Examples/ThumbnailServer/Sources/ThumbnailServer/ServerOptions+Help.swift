import Foundation

extension ServerOptions {
    /// `--help`: every setting of ``table``, by section, with its default
    /// and environment variable.
    static var helpText: String {
        var text = """
        usage: thumbnail-server [options]

        A thumbnail proxy: GET /thumbnail?url=…&width=…&height=… and imgproxy-style
        /{signature}/{options…}/plain/{url}. Every setting is a flag, an environment
        variable, or a key of the JSON file given by --config; the command line wins
        over the environment, which wins over the file.
        --help prints this; --help-markdown prints it as the README's table.

        """
        for section in OptionSpec.Section.allCases {
            text += "\n\(section.rawValue):\n"
            for spec in table where spec.section == section {
                let name = spec.onCommandLine ? spec.synopsis : "(\(spec.environment[0]))"
                text += "  \(name)\n"
                var details = plain(spec.help)
                details += " (default \(plain(spec.defaultValue)); env \(spec.environment.joined(separator: ", ")))"
                for line in wrap(details, width: 74) { text += "      \(line)\n" }
            }
        }
        text += """

        Exit status: 0 after a clean shutdown (SIGTERM, SIGINT); \(UsageError.exitCode) for a bad setting;
        1 when the server cannot run (a port in use, say).

        """
        return text
    }

    /// The README's table of settings: the same rows as ``helpText``.
    static var markdownTable: String {
        var text = "| flag | environment | default | what |\n|---|---|---|---|\n"
        for spec in table {
            let flag = spec.onCommandLine ? "`\(spec.synopsis)`" : "—"
            let environment = spec.environment.map { name -> String in
                spec.kind == .flag ? "`\(name)=1`" : "`\(name)`"
            }.joined(separator: ", ")
            let defaultValue = spec.defaultValue.contains(" ") || spec.defaultValue == "none" || spec.defaultValue == "off"
                ? spec.defaultValue : "`\(spec.defaultValue)`"
            text += "| \(flag) | \(environment) | \(defaultValue) | \(spec.help) |\n"
        }
        return text
    }

    /// `text` without Markdown's backquotes.
    private static func plain(_ text: String) -> String {
        text.replacingOccurrences(of: "`", with: "")
    }

    /// `text` in lines of at most `width` characters, broken at spaces.
    private static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += line.isEmpty ? String(word) : " " + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
