import ExampleClients
import Foundation
public import LiveConnectionWire

/// One subcommand of `livesim`. Each is defined in its own file and listed in ``Livesim/commands``.
struct Command: Sendable {
    /// The word after `livesim`.
    var name: String
    /// Other words that run it: former names kept so scripts keep working. `livesim help`
    /// shows them beside the name.
    var aliases: [String] = []
    /// One line for `livesim help`.
    var summary: String
    /// The usage text printed by `livesim help NAME` and `livesim NAME --help`; it quotes every
    /// option's range (and, for the commands that name clients, lists the environment's). The
    /// exit statuses are appended from ``exitCodes``.
    var usage: @Sendable (CommandEnvironment) -> String
    /// Every status the command exits with besides 64 (bad arguments), and what it means.
    var exitCodes: KeyValuePairs<Int32, String>
    /// Reads the arguments (only ``ArgumentError`` can stop it: exit 64) and returns the work,
    /// which runs only once the whole command line was understood. An error thrown by the work
    /// is a runtime failure: one line on standard error, exit 1.
    var parse: @Sendable (inout Arguments, CommandEnvironment) throws(ArgumentError) -> Invocation

    typealias Invocation = @Sendable () async throws -> Int32

    /// A command whose usage and arguments depend on the environment (the clients it can name).
    init(
        name: String, summary: String, usage: @escaping @Sendable (CommandEnvironment) -> String,
        exitCodes: KeyValuePairs<Int32, String>,
        parse: @escaping @Sendable (inout Arguments, CommandEnvironment) throws(ArgumentError) -> Invocation
    ) {
        self.name = name
        self.summary = summary
        self.usage = usage
        self.exitCodes = exitCodes
        self.parse = parse
    }

    /// A command with a fixed usage whose arguments may name the environment's clients.
    init(
        name: String, summary: String, usage: String, exitCodes: KeyValuePairs<Int32, String>,
        parse: @escaping @Sendable (inout Arguments, CommandEnvironment) throws(ArgumentError) -> Invocation
    ) {
        self.init(name: name, summary: summary, usage: { _ in usage }, exitCodes: exitCodes, parse: parse)
    }

    /// A command that knows no clients: the same usage and the same work in every environment.
    init(
        name: String, summary: String, usage: String, exitCodes: KeyValuePairs<Int32, String>,
        parse: @escaping @Sendable (inout Arguments) throws(ArgumentError) -> Invocation, aliases: [String] = []
    ) {
        self.init(
            name: name, summary: summary, usage: usage, exitCodes: exitCodes,
            parse: { arguments, _ throws(ArgumentError) in try parse(&arguments) })
        self.aliases = aliases
    }

    /// Whether `word` runs this command (its name or one of its aliases).
    func isNamed(_ word: String) -> Bool { word == name || aliases.contains(word) }

    /// The full text of `livesim help NAME`.
    func help(in environment: CommandEnvironment) -> String {
        let rows = exitCodes.map { ($0.key, $0.value) } + [(64, "bad arguments (the message says which and why)")]
        let statuses = rows.map { "  " + "\($0.0)".padding(toLength: 5, withPad: " ", startingAt: 0) + $0.1 }
        return usage(environment) + "\n\nexit status:\n" + statuses.joined(separator: "\n")
    }

    /// Every status the command can exit with.
    var documentedStatuses: Set<Int32> { Set(exitCodes.map(\.key) + [64]) }
}

/// The `livesim` command line, as a library: `livesim` itself calls it with the built-in
/// clients, and a package of your own calls it with yours, so `explore --client`, `replay`,
/// `client`, `judge --claims-of` and `torture --claims-of` know them by name.
///
/// ```swift
/// // Sources/MyLivesim/main.swift: the executable target my-livesim, depending on LivesimCLI
/// import Foundation
/// import LivesimCLI
///
/// exit(await Livesim.main(clients: [MyClient.kind]))
/// ```
///
/// `swift run my-livesim explore --client mine` then explores your client from the wire, and
/// `swift run my-livesim replay TRACE` replays the shrunk trace it writes. Every other command
/// is `livesim`'s, unchanged (docs/cli.md).
public enum Livesim {
    /// The clients every livesim knows: the package's own manager (`manager`) and the three
    /// victims of `ExampleClients` (`notifications`, `actor`, `timers`).
    public static var builtInClients: [ClientKind] { [ManagerClient.kind()] + ExampleClients.all }

    /// Runs one command line and returns its exit status (exit the process with it).
    ///
    /// - Parameters:
    ///   - arguments: the words after the program's name.
    ///   - clients: your client kinds, added to ``builtInClients``. A name used twice (yours
    ///     and a built-in, or two of yours), empty, or starting with `-` is a usage error:
    ///     one line on standard error and status 64, whatever the command.
    ///   - name: the program's name in the replay lines it prints (`swift run NAME replay …`);
    ///     by default the name it was started as.
    public static func main(
        arguments: [String] = Array(CommandLine.arguments.dropFirst()), clients: [ClientKind] = [],
        name: String = programName
    ) async -> Int32 {
        let catalogue: ClientCatalogue
        do {
            catalogue = try catalogueOf(builtIn: builtInClients, yours: clients)
        } catch {
            standardError("\(name): \(error.description)")
            return 64
        }
        return await run(arguments, in: CommandEnvironment(clients: catalogue, program: name))
    }

    /// The name this process was started as (`livesim`, `my-livesim`), from its first argument.
    public static var programName: String {
        let path = CommandLine.arguments.first ?? ""
        let name = (path as NSString).lastPathComponent
        return name.isEmpty ? "livesim" : name
    }

    /// Every subcommand, in the order `livesim help` lists them.
    static let commands: [Command] = [
        .explore, .merge,
        .stats,
        .replay,
        .shrink,
        .diff,
        .connect, .echoClient, .serve, .proxy, .judge, .torture, .client,
        .check,
        .interleavings,
    ]

    /// Runs one command line and returns the exit status (the process exits with it).
    static func run(_ words: [String], in environment: CommandEnvironment) async -> Int32 {
        switch resolve(words, in: environment) {
        case .exit(let status, let text):
            if status == 0 { print(text) } else { standardError(text) }
            return status
        case .run(let command, let invocation):
            do {
                return try await invocation()
            } catch {
                standardError("livesim \(command.name): " + clipped(describe(error), to: 400))
                return 1
            }
        }
    }

    /// What a command line asks for, decided without running anything.
    enum Resolution {
        /// Print `text` (standard output for 0, standard error otherwise) and exit.
        case exit(Int32, String)
        case run(Command, Command.Invocation)
    }

    /// Help, a usage error, or the parsed work: everything `livesim` decides from its arguments
    /// alone (the in-process argument tests call this).
    static func resolve(_ words: [String], in environment: CommandEnvironment) -> Resolution {
        var words = words
        // With no command, livesim runs `explore` (the README's first command).
        let name = words.first.map { Arguments.looksLikeOption($0) && $0 != "--help" && $0 != "-h" ? "explore" : $0 }
        if let first = words.first, first == name { words.removeFirst() }
        if name == "help" || name == "--help" || name == "-h" { return help(words, in: environment) }
        guard let command = commands.first(where: { $0.isNamed(name ?? "explore") }) else {
            return .exit(64, "livesim: unknown command '\(clipped(name ?? ""))'. Commands: \(commandList)")
        }
        var arguments = Arguments(words)
        if arguments.wantsHelp { return .exit(0, command.help(in: environment)) }
        do {
            return .run(command, try command.parse(&arguments, environment))
        } catch {
            return .exit(
                64,
                "livesim \(command.name): \(clipped(error.description, to: 300))\n\(synopsis(of: command, in: environment))\n"
                    + "See 'livesim help \(command.name)'.")
        }
    }

    private static var commandList: String { commands.map(\.name).joined(separator: ", ") }

    /// The first usage line, for a reminder under an error (the message stays under 500 characters).
    private static func synopsis(of command: Command, in environment: CommandEnvironment) -> String {
        clipped(command.usage(environment).prefix { $0 != "\n" }, to: 120)
    }

    private static func help(_ words: [String], in environment: CommandEnvironment) -> Resolution {
        guard let name = words.first else { return .exit(0, overview) }
        guard words.count == 1 else { return .exit(64, "livesim help: one command at a time (got \(words.count))") }
        if name == "help" { return .exit(0, overview) }
        guard let command = commands.first(where: { $0.isNamed(name) }) else {
            return .exit(64, "livesim help: unknown command '\(clipped(name))'. Commands: \(commandList)")
        }
        return .exit(0, command.help(in: environment))
    }

    static var overview: String {
        var lines = ["livesim — deterministic simulation of LiveConnection", "", "Commands:"]
        for command in commands {
            let also = command.aliases.isEmpty ? "" : " (also: \(command.aliases.joined(separator: ", ")))"
            lines.append(
                "  " + command.name.padding(toLength: 15, withPad: " ", startingAt: 0) + command.summary + also)
        }
        lines.append("")
        lines.append("`livesim help COMMAND` or `livesim COMMAND --help` shows a command's options and exit statuses.")
        lines.append(
            "With no command, livesim runs `explore`. Exit status 64 means bad arguments. docs/cli.md has it all.")
        return lines.joined(separator: "\n")
    }
}

/// Writes a line to standard error (diagnostics never mix with results on standard output).
func standardError(_ line: String) {
    var text = line
    if !text.hasSuffix("\n") { text += "\n" }
    FileHandle.standardError.write(Data(text.utf8))
}
