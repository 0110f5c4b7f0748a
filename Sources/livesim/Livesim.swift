import Foundation

/// One subcommand of `livesim`. Each is defined in its own file and listed in ``Livesim/commands``.
struct Command: Sendable {
    /// The word after `livesim`.
    var name: String
    /// One line for `livesim help`.
    var summary: String
    /// The usage text printed by `livesim help NAME` and after an argument error.
    var usage: String
    /// Runs the command; returns the process exit code.
    var run: @Sendable (inout Arguments) async throws -> Int32
}

@main
enum Livesim {
    /// Every subcommand, in the order `livesim help` lists them.
    static let commands: [Command] = [
        .explore,
        .stats,
        .replay,
        .shrink,
        .diff,
        .connect, .echoClient, .serve,
        .check,
        .schedules,
    ]

    static func main() async {
        var words = Array(CommandLine.arguments.dropFirst())
        let name = words.isEmpty ? "explore" : words.removeFirst()
        if name == "help" || name == "--help" || name == "-h" {
            printHelp(for: words.first)
            exit(0)
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            standardError(
                "livesim: unknown command '\(name)'. Commands: \(commands.map(\.name).joined(separator: ", "))")
            exit(64)
        }
        var arguments = Arguments(words)
        do {
            let status = try await command.run(&arguments)
            exit(status)
        } catch let error as ArgumentError {
            standardError("livesim \(name): \(error)\n\n\(command.usage)")
            exit(64)
        } catch {
            standardError("livesim \(name): \(error)")
            exit(1)
        }
    }

    static func printHelp(for name: String?) {
        if let name, let command = commands.first(where: { $0.name == name }) {
            print(command.usage)
            return
        }
        print("livesim — deterministic simulation of LiveConnection\n\nCommands:")
        for command in commands {
            let padding = String(repeating: " ", count: max(1, 13 - command.name.count))
            print("  \(command.name)\(padding)\(command.summary)")
        }
        print("\n`livesim help COMMAND` shows a command's options. With no command, livesim runs `explore`.")
    }
}

/// Writes a line to standard error (diagnostics never mix with results on standard output).
func standardError(_ line: String) {
    var text = line
    if !text.hasSuffix("\n") { text += "\n" }
    FileHandle.standardError.write(Data(text.utf8))
}
