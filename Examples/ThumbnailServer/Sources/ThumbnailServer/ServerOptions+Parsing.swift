import Configuration
import Foundation
import SystemPackage

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
    /// `THUMBNAIL_CONFIG` (if any): the first that gives a setting wins, each
    /// read by swift-configuration's provider for it.
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
            sources.append(.file(try await configurationFile(at: path), path: path))
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
        case file(FileProvider<JSONSnapshot>, path: String)
    }

    /// The first value `sources` give for `spec`, and how it was spelled there.
    private static func lookUp(_ spec: OptionSpec, in sources: [Source]) throws(UsageError) -> (source: String, value: OptionSpec.Value)? {
        for source in sources {
            switch source {
            case .commandLine(let provider):
                guard spec.onCommandLine else { continue }
                if let value = try read(spec, from: provider, key: [spec.key], named: spec.flag) { return (spec.flag, value) }
            case .environment(let provider):
                for name in spec.environment {
                    if let value = try read(spec, from: provider, key: [name], named: name) { return (name, value) }
                }
            case .file(let provider, let path):
                let name = "\(path): \(spec.key)"
                if let value = try read(spec, from: provider, key: [spec.key], named: name) { return (name, value) }
            }
        }
        return nil
    }

    /// `spec`'s value in `provider` under `key` (spelled `name` there), or
    /// `nil` when it has none. A value is read as text, or as a JSON number
    /// turned to text; a switch as a Boolean; a list as text values.
    private static func read(
        _ spec: OptionSpec, from provider: some ConfigProvider, key: [String], named name: String
    ) throws(UsageError) -> OptionSpec.Value? {
        let absolute = AbsoluteConfigKey(key)
        switch spec.kind {
        case .value:
            if let result = try? provider.value(forKey: absolute, type: .string) {
                guard let value = result.value else { return nil }
                if case .string(let text) = value.content { return .text(text) }
            }
            if let result = try? provider.value(forKey: absolute, type: .int), let value = result.value,
               case .int(let number) = value.content {
                return .text(String(number))
            }
            throw UsageError("\(name): expects one value")
        case .flag:
            do {
                guard let value = try provider.value(forKey: absolute, type: .bool).value else { return nil }
                guard case .bool(let on) = value.content else { throw UsageError("\(name): expects true or false") }
                return .flag(on)
            } catch let error as UsageError {
                throw error
            } catch {
                throw UsageError("\(name): expects true or false (1 or 0), or nothing on the command line")
            }
        case .list:
            do {
                guard let value = try provider.value(forKey: absolute, type: .stringArray).value else { return nil }
                guard case .stringArray(let values) = value.content else { throw UsageError("\(name): expects values") }
                return .list(values)
            } catch let error as UsageError {
                throw error
            } catch {
                throw UsageError("\(name): expects a list of values")
            }
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

    /// The JSON configuration file at `path`, its keys checked against the table.
    private static func configurationFile(at path: String) async throws(UsageError) -> FileProvider<JSONSnapshot> {
        guard let data = FileManager.default.contents(atPath: path) else { throw UsageError("\(path): cannot be read") }
        guard let object = try? JSONSerialization.jsonObject(with: data), let settings = object as? [String: Any] else {
            throw UsageError("\(path): is not a JSON object of settings")
        }
        let known = Set(table.map(\.key)).subtracting(["config"])
        if let unknown = settings.keys.sorted().first(where: { !known.contains($0) }) {
            throw UsageError("\(path): unknown setting \(unknown)")
        }
        do {
            return try await FileProvider<JSONSnapshot>(filePath: FilePath(path))
        } catch {
            throw UsageError("\(path): \(error)")
        }
    }
}
