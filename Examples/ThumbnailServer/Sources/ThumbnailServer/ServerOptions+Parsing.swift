import Configuration
import Foundation

extension ServerOptions {
    /// What a command line asks for.
    enum Invocation: Sendable {
        /// Run with these settings.
        case run(ServerOptions)
        /// Print the help (`--help`, `-h`).
        case help
        /// Print the settings as the README's Markdown table (`--help-markdown`).
        case helpMarkdown
    }

    /// Reads the settings from `arguments` (without the program name), then
    /// `environment`, then the JSON file named by `--config` or
    /// `THUMBNAIL_CONFIG` (if any): the first that gives a setting wins. The
    /// command line and the environment are read by swift-configuration's
    /// providers, the file by `JSONDecoder`; every source hands the words it
    /// holds to the one parser of the setting's kind (``OptionSpec/apply``),
    /// so a value means the same wherever it is written.
    ///
    /// - Throws: ``UsageError`` naming the flag, variable or file key of an
    ///   unknown setting or of a value the setting does not take.
    static func parse(_ arguments: [String], environment: [String: String]) async throws(UsageError) -> Invocation {
        if arguments.contains("--help") || arguments.contains("-h") { return .help }
        if arguments.contains("--help-markdown") { return .helpMarkdown }
        try checkCommandLine(arguments)
        let commandLine = CommandLineArgumentsProvider(arguments: ["thumbnail-server"] + arguments)
        let secrets = Set(table.filter { !$0.onCommandLine }.flatMap(\.environment))
        let variables = EnvironmentVariablesProvider(
            environmentVariables: environment, secretsSpecifier: .specific(secrets)
        )
        var sources: [Source] = [.commandLine(commandLine), .environment(variables)]
        if let configSpec = table.first(where: { $0.key == "config" }), let found = try lookUp(configSpec, in: sources),
           case .text(let path) = found.value {
            sources.append(.file(try configurationFile(at: path), path: path))
        }
        var options = ServerOptions()
        for spec in table where spec.key != "config" {
            guard let found = try lookUp(spec, in: sources) else { continue }
            do {
                try spec.apply(found.value, &options)
            } catch let error as OptionValueError {
                throw UsageError("\(found.source): expects \(error.expected)")
            } catch {
                throw UsageError("\(found.source): \(error)")
            }
        }
        try options.redis.validate()
        if let keyHex = options.keyHex {
            guard let signer = URLSigner(keyHex: keyHex, saltHex: options.saltHex) else {
                throw UsageError("THUMBNAIL_KEY and THUMBNAIL_SALT must be hex, and the key not empty")
            }
            options.signer = signer
        }
        guard options.minMaxAge <= options.maxAge else {
            throw UsageError("--min-max-age (\(options.minMaxAge)) is more than --max-age (\(options.maxAge))")
        }
        return .run(options)
    }

    /// Where a setting can come from.
    private enum Source {
        case commandLine(CommandLineArgumentsProvider)
        case environment(EnvironmentVariablesProvider)
        case file([String: ConfigurationFileValue], path: String)
    }

    /// The first value `sources` give for `spec`, and how it was spelled there.
    private static func lookUp(_ spec: OptionSpec, in sources: [Source]) throws(UsageError) -> (source: String, value: OptionSpec.Value)? {
        for source in sources {
            switch source {
            case .commandLine(let provider):
                guard spec.onCommandLine else { continue }
                if let value = try read(spec, fromCommandLine: provider) { return (spec.flag, value) }
            case .environment(let provider):
                for name in spec.environment {
                    if let value = try read(name, from: provider) { return (name, value) }
                }
            case .file(let settings, let path):
                let name = "\(path): \(spec.key)"
                if let value = try settings[spec.key]?.optionValue(named: name) { return (name, value) }
            }
        }
        return nil
    }

    /// `spec`'s value on the command line: its text, the values of a
    /// repeated list flag, or ``OptionSpec/Value/present`` for a bare switch.
    /// Only the words are read here; what they mean is the setting's one
    /// parser's to say, as for every other source.
    private static func read(_ spec: OptionSpec, fromCommandLine provider: CommandLineArgumentsProvider) throws(UsageError) -> OptionSpec.Value? {
        let values: [String]
        do {
            guard let value = try provider.value(forKey: AbsoluteConfigKey([spec.key]), type: .stringArray).value,
                  case .stringArray(let words) = value.content else { return nil }
            values = words
        } catch {
            throw UsageError("\(spec.flag): expects a value")
        }
        switch spec.kind {
        case .flag:
            // A switch takes no value (``checkCommandLine(_:)`` refused `--flag=value`).
            return .present
        case .value:
            guard values.count == 1 else { throw UsageError("\(spec.flag): expects one value") }
            return .text(values[0])
        case .list:
            return .list(values)
        }
    }

    /// The variable `name`'s text, whatever the setting's kind: a list is
    /// comma-separated, a switch is read by the switch's parser.
    private static func read(_ name: String, from provider: EnvironmentVariablesProvider) throws(UsageError) -> OptionSpec.Value? {
        do {
            guard let value = try provider.value(forKey: AbsoluteConfigKey([name]), type: .string).value,
                  case .string(let text) = value.content else { return nil }
            return .text(text)
        } catch {
            throw UsageError("\(name): expects a value")
        }
    }

    /// Refuses what swift-configuration's command-line provider would
    /// silently ignore or misread: an unknown option, a secret given as a
    /// flag, an argument that is not an option's value, a switch given a
    /// value, an option without one.
    private static func checkCommandLine(_ arguments: [String]) throws(UsageError) {
        var expecting: OptionSpec?
        var valuesSeen = 0
        func close() throws(UsageError) {
            guard let spec = expecting else { return }
            if valuesSeen == 0 { throw UsageError("\(spec.flag) needs a value: \(spec.synopsis)") }
            expecting = nil
        }
        for argument in arguments {
            if argument.hasPrefix("--") {
                try close()
                let name = String(argument.prefix { $0 != "=" })
                guard let spec = table.first(where: { $0.flag == name }) else {
                    throw UsageError("unknown option \(name)")
                }
                guard spec.onCommandLine else {
                    throw UsageError("\(name) is not read from the command line (other users can list it): set \(spec.environment[0])")
                }
                let inline = argument.contains("=")
                switch spec.kind {
                case .flag:
                    if inline { throw UsageError("\(name) takes no value") }
                case .value, .list:
                    if !inline {
                        expecting = spec
                        valuesSeen = 0
                    }
                }
            } else if let spec = expecting {
                if case .value = spec.kind, valuesSeen == 1 { throw UsageError("unexpected argument \(argument) after \(spec.flag)") }
                valuesSeen += 1
            } else {
                throw UsageError("unexpected argument \(argument)")
            }
        }
        try close()
    }

    /// The JSON configuration file at `path`, its keys checked against the
    /// table, each value as the words the setting's parser reads.
    private static func configurationFile(at path: String) throws(UsageError) -> [String: ConfigurationFileValue] {
        guard let data = FileManager.default.contents(atPath: path) else { throw UsageError("\(path): cannot be read") }
        guard let settings = try? JSONDecoder().decode([String: ConfigurationFileValue].self, from: data) else {
            throw UsageError("\(path): is not a JSON object of settings")
        }
        let known = Set(table.map(\.key)).subtracting(["config"])
        if let unknown = settings.keys.sorted().first(where: { !known.contains($0) }) {
            throw UsageError("\(path): unknown setting \(unknown)")
        }
        return settings
    }
}
