import Foundation
import Testing

@testable import LivesimCLI

/// Whole command lines, decided in-process by `Livesim.resolve` (what livesim does before
/// any work starts): help, usage errors with their exit status and message, and each
/// argument case of issue 14.
@Suite("livesim command lines")
struct CommandLineTests {
    /// The status and text a command line ends with before running, or nil if it would run.
    static func outcome(_ words: [String]) -> (status: Int32, text: String)? {
        if case .exit(let status, let text) = Livesim.resolve(words, in: .livesim) { return (status, text) }
        return nil
    }

    static func usageError(_ words: [String]) -> String? {
        guard let outcome = outcome(words), outcome.status == 64 else { return nil }
        return outcome.text
    }

    @Test("--help and -h work on every command, anywhere before --, and print that command's help")
    func helpEverywhere() {
        for command in Livesim.commands {
            for words in [
                [command.name, "--help"], [command.name, "-h"], [command.name, "--seeds", "x", "-h"],
                ["help", command.name],
            ] {
                let result = Self.outcome(words)
                #expect(result?.status == 0, "\(words)")
                #expect(result?.text == command.help(in: .livesim), "\(words)")
            }
        }
    }

    @Test("a command's former name is its alias: help schedules is help interleavings")
    func formerNameIsAnAlias() {
        let interleavings = Livesim.commands.first { $0.name == "interleavings" }
        #expect(interleavings?.isNamed("schedules") == true)
        #expect(Self.outcome(["help", "schedules"])?.text == interleavings?.help(in: .livesim))
        #expect(Self.outcome(["schedules", "--help"])?.text == interleavings?.help(in: .livesim))
    }

    @Test("help with an unknown command is an error (64), not the general help")
    func helpUnknown() {
        let result = Self.outcome(["help", "bogus"])
        #expect(result?.status == 64)
        #expect(result?.text.contains("unknown command 'bogus'") == true)
        #expect(Self.outcome(["help"])?.status == 0)
        #expect(Self.outcome(["bogus"])?.status == 64)
    }

    @Test("every command's help lists its exit statuses, 64 included")
    func exitStatusesDocumented() {
        for command in Livesim.commands {
            for status in command.documentedStatuses {
                let row = "\n  " + "\(status)".padding(toLength: 5, withPad: " ", startingAt: 0)
                #expect(command.help(in: .livesim).contains(row), "\(command.name) \(status)")
            }
        }
    }

    @Test("options before the URL: echo-client --max-message-size N URL runs")
    func optionBeforePositional() {
        #expect(Self.outcome(["echo-client", "--max-message-size", "4096", "ws://127.0.0.1:9/"]) == nil)
        #expect(Self.outcome(["connect", "--topic", "a", "ws://127.0.0.1:9/", "--duration", "1.5s"]) == nil)
        #expect(Self.outcome(["diff", "--context", "1", "a.trace", "b.trace"]) == nil)
        #expect(Self.outcome(["stats", "--runs", "10", "policies"]) == nil)
    }

    @Test(
        "the issue's trapping values are usage errors naming the range",
        arguments: [
            (["connect", "ws://127.0.0.1:1/", "--duration", "1e300"], "invalid --duration '1e300'"),
            (["connect", "ws://127.0.0.1:1/", "--ping-interval", "1e300"], "invalid --ping-interval '1e300'"),
            (
                ["connect", "ws://127.0.0.1:1/", "--duration", "9999999999h"],
                "--duration must be between 1ms and 1000h"
            ),
            (["stats", "herd", "--outage", "-1s"], "--outage must be between 0s and 1h (got -1s)"),
            (["stats", "herd", "--connections", "99999999999"], "--connections must be in 1...100000"),
            (["stats", "policies", "--runs", "99999999999"], "--runs must be in 2...100000"),
            (["stats", "herd", "--clients", "100000"], "--clients must be in 1...1000"),
            (
                ["stats", "fit", "f", "--policy", "full-jitter", "--tolerance", "-1ms"],
                "--tolerance must be between 0s and 1s"
            ),
            (["explore", "--seeds", "0"], "at least one seed"),
            (["explore", "--seeds", "5..<5"], "at least one seed"),
            (["explore", "--threads", "0"], "--threads must be in 1...256 (got 0)"),
            (["check", "--topics", "9"], "--topics must be in 0...3 (got 9)"),
            (["check", "--log", "-1"], "--log must be in 0...7 (got -1)"),
            (["interleavings", "--pct", "-1"], "--pct must be in 0...1000000"),
            (["schedules", "--max-schedules", "0"], "--max-schedules must be in 1...10000000"),
            (["connect", "ws://"], "invalid URL 'ws://'"),
            (["connect", "http://example.com/"], "invalid URL"),
            (["connect", "ws://host:0/"], "port in 1...65535"),
            (["connect", "ws://exa mple.com/"], "invalid URL"),
            (["echo-client", "ws://127.0.0.1:9/", "--timeout", "0s"], "--timeout must be between 1ms and 1h"),
            (["serve", "--idle-timeout", "0s"], "--idle-timeout must be between 1ms and 1h"),
            (["serve", "--max-buffered-bytes", "5"], "--max-buffered-bytes must be in 1048576...68719476736 (got 5)"),
            (["serve", "--max-buffered-bytes", "1e9"], "invalid --max-buffered-bytes '1e9'"),
            (["serve", "--idle-timeout", "2h"], "--idle-timeout must be between 1ms and 1h"),
            (["serve", "--no-deflate", "--deflate-params", "client_no_context_takeover"], "give one"),
            (["serve", "--deflate-params", "server_max_window_bits=16"], "must be a number 8...15, not '16'"),
            (["serve", "--deflate-params", "server_max_window_bits"], "must be a number 8...15, not ''"),
            (["serve", "--deflate-params", "x_unknown"], "unknown permessage-deflate parameter x_unknown"),
            (["serve", "--deflate-params", "a; ;"], "invalid --deflate-params"),
            (["serve", "--admin-token", ""], "--admin-token must be 1 to 256 characters"),
            (["serve", "--admin-token", String(repeating: "t", count: 257)], "--admin-token must be 1 to 256"),
            (["serve", "--admin-token", "two words"], "--admin-token must be printable ASCII without spaces"),
            (["serve", "--admin-token", "caf\u{E9}"], "--admin-token must be printable ASCII without spaces"),
            (
                ["connect", "ws://127.0.0.1:9/", "--check", "--tolerance", "2m"],
                "--tolerance must be between 0s and 1m"
            ),
            (["shrink", "--seed", "1", "--seeds", "0..9"], "exactly one of"),
            (["replay", "x.trace", "--variant", "gives-up"], "a trace file names its own"),
        ])
    func trappingValues(words: [String], message: String) {
        let text = Self.usageError(words)
        #expect(text?.contains(message) == true, "\(words): \(text ?? "accepted")")
        #expect((text?.count ?? 0) < 500)
    }

    @Test("one duration syntax in every command: explore --duration 1.5s, connect --duration 1500ms, stats --base 2m")
    func oneDurationSyntax() {
        #expect(Self.outcome(["explore", "--duration", "1.5s", "--seeds", "0..2"]) == nil)
        #expect(Self.outcome(["replay", "--seed", "3", "--duration", "1h30m"]) == nil)
        #expect(Self.outcome(["connect", "ws://127.0.0.1:9/", "--duration", "1500ms", "--ping-timeout", "2m"]) == nil)
        #expect(Self.outcome(["stats", "fit", "f", "--policy", "full-jitter", "--base", "1.5s", "--cap", "2m"]) == nil)
    }

    @Test("seed ranges in the forms a shell does not mangle are accepted by explore and shrink")
    func seedForms() {
        for form in ["0..300", "0-300", "0..<300", "0...299", "300"] {
            #expect(Self.outcome(["explore", "--seeds", form]) == nil, "\(form)")
            #expect(Self.outcome(["shrink", "--seeds", form]) == nil, "\(form)")
        }
    }

    @Test("shrink names its target with --rule, and still reads --invariant, its former name; never both")
    func ruleOption() {
        #expect(Self.outcome(["shrink", "--seeds", "0..3", "--rule", "single-live-transport"]) == nil)
        #expect(Self.outcome(["shrink", "--seeds", "0..3", "--invariant", "single-live-transport"]) == nil)
        let both = [
            "shrink", "--seeds", "0..3", "--rule", "single-live-transport", "--invariant", "single-live-transport",
        ]
        #expect(Self.usageError(both)?.contains("not both") == true)
        let unknown = Self.usageError(["shrink", "--seeds", "0..3", "--rule", "no-such-rule"])
        #expect(unknown?.contains("invalid --rule 'no-such-rule'") == true)
    }

    @Test("a 1 MB argument yields a message under 500 characters")
    func hugeArgument() {
        let huge = String(repeating: "9", count: 1_000_000)
        for words in [["explore", "--seeds", huge], ["explore", huge], [huge], ["connect", huge], ["stats", huge]] {
            let result = Self.outcome(words)
            #expect(result?.status == 64)
            #expect((result?.text.count ?? .max) < 500)
        }
    }

    @Test("check names the flag, not the model's field")
    func messagesNameFlags() {
        #expect(Self.usageError(["check", "--log", "8"])?.contains("--log must be in 0...7 (got 8)") == true)
        #expect(Self.usageError(["check", "--commands", "4"])?.contains("--commands must be in 0...3 (got 4)") == true)
    }
}
