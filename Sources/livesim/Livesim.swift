import Foundation

/// One subcommand of `livesim`. Each is defined in its own file and listed in ``Livesim/commands``.
struct Command: Sendable {
    /// The word after `livesim`.
    var name: String
    /// One line for `livesim help`.
    var summary: String
    /// The usage text printed by `livesim help NAME` and `livesim NAME --help`; it quotes every
    /// option's range. The exit statuses are appended from ``exitCodes``.
    var usage: String
    /// Every status the command exits with besides 64 (bad arguments), and what it means.
    var exitCodes: KeyValuePairs<Int32, String>
    /// Reads the arguments (only ``ArgumentError`` can stop it: exit 64) and returns the work,
    /// which runs only once the whole command line was understood. An error thrown by the work
    /// is a runtime failure: one line on standard error, exit 1.
    var parse: @Sendable (inout Arguments) throws(ArgumentError) -> Invocation

    typealias Invocation = @Sendable () async throws -> Int32

    /// The full text of `livesim help NAME`.
    var help: String {
        let rows = exitCodes.map { ($0.key, $0.value) } + [(64, "bad arguments (the message says which and why)")]
        let statuses = rows.map { "  " + "\($0.0)".padding(toLength: 5, withPad: " ", startingAt: 0) + $0.1 }
        return usage + "\n\nexit status:\n" + statuses.joined(separator: "\n")
    }

    /// Every status the command can exit with.
    var documentedStatuses: Set<Int32> { Set(exitCodes.map(\.key) + [64]) }
}

@main
enum Livesim {
    /// Every subcommand, in the order `livesim help` lists them.
    static let commands: [Command] = [
        .explore, .merge,
        .stats,
        .replay,
        .shrink,
        .diff,
        .connect, .echoClient, .serve, .proxy, .judge, .torture, .client,
        .check,
        .schedules,
    ]

    static func main() async {
        exit(await run(Array(CommandLine.arguments.dropFirst())))
    }

    /// Runs one command line and returns the exit status (the process exits with it).
    static func run(_ words: [String]) async -> Int32 {
        switch resolve(words) {
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
    static func resolve(_ words: [String]) -> Resolution {
        var words = words
        // With no command, livesim runs `explore` (the README's first command).
        let name = words.first.map { Arguments.looksLikeOption($0) && $0 != "--help" && $0 != "-h" ? "explore" : $0 }
        if let first = words.first, first == name { words.removeFirst() }
        if name == "help" || name == "--help" || name == "-h" { return help(words) }
        guard let command = commands.first(where: { $0.name == (name ?? "explore") }) else {
            return .exit(64, "livesim: unknown command '\(clipped(name ?? ""))'. Commands: \(commandList)")
        }
        var arguments = Arguments(words)
        if arguments.wantsHelp { return .exit(0, command.help) }
        do {
            return .run(command, try command.parse(&arguments))
        } catch {
            return .exit(
                64,
                "livesim \(command.name): \(clipped(error.description, to: 300))\n\(synopsis(of: command))\n"
                    + "See 'livesim help \(command.name)'.")
        }
    }

    private static var commandList: String { commands.map(\.name).joined(separator: ", ") }

    /// The first usage line, for a reminder under an error (the message stays under 500 characters).
    private static func synopsis(of command: Command) -> String {
        clipped(command.usage.prefix { $0 != "\n" }, to: 120)
    }

    private static func help(_ words: [String]) -> Resolution {
        guard let name = words.first else { return .exit(0, overview) }
        guard words.count == 1 else { return .exit(64, "livesim help: one command at a time (got \(words.count))") }
        if name == "help" { return .exit(0, overview) }
        guard let command = commands.first(where: { $0.name == name }) else {
            return .exit(64, "livesim help: unknown command '\(clipped(name))'. Commands: \(commandList)")
        }
        return .exit(0, command.help)
    }

    static var overview: String {
        var lines = ["livesim — deterministic simulation of LiveConnection", "", "Commands:"]
        for command in commands {
            lines.append("  " + command.name.padding(toLength: 13, withPad: " ", startingAt: 0) + command.summary)
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
