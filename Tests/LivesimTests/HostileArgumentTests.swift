import Foundation
import TestScheduling
import Testing

@testable import LivesimCLI

/// Thousands of random and hostile argument vectors against every command, decided
/// in-process: none may trap (a trap ends this test process), each ends in help (0), a
/// usage error (64) with a message under 500 characters, or parsed work.
/// `LivesimProcessTests` spawns the built binary for a sample of the same vectors.
@Suite("livesim hostile arguments", .waitsOnPeers)
struct HostileArgumentTests {
    /// Values a hostile or careless user types: extremes, wrong types, empty, huge, control characters.
    static let hostileValues: [String] = [
        "", "0", "-0", "1", "-1", "+1", "2", "7", "1.5", "-1.5", "1e300", "-1e300", "inf", "-inf", "nan", "NaN",
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "18446744073709551615",
        "18446744073709551616", "99999999999", "99999999999999999999999999", "0x10", "1_000", "١٢",
        "1.5s", "1500ms", "2m", "1h30m", "-1s", "0s", "0ms", "1000h", "1001h", "99999999999h", "1ns", "250us", "1e3s",
        "0..<300", "0..300", "0-300", "0...299", "5..<5", "7-3", "0..<0", "0...18446744073709551615", "..", "-",
        "--", "-h", "--help", "=", "--seeds", "ws://127.0.0.1:1/", "ws://", "ws://h:0/", "ws://h:65536/",
        "http://127.0.0.1/", "wss://[::1]:1/", "ws://exa mple/", "x.trace", "/nonexistent/x.trace", "/", ".",
        "fifo", "random", "pct", "lifo", "correct", "gives-up", "full-jitter", "table", "10,50", "1,,2", ",", "1,0",
        "fit", "policies", "herd", "\n", "\u{0}", "\u{1B}[2J", "é", "🙂", String(repeating: "a", count: 5000),
        String(repeating: "9", count: 400), "Authorization: Bearer x", ":x", "K:\r\nInjected: 1",
    ]

    /// Every option a command documents, read from its usage text (so a new option is fuzzed too).
    static func options(of command: Command) -> [String] {
        let names = command.usage(.livesim).matches(of: #/--[a-z][a-z-]*/#).map { String($0.output) }
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }

    /// Each command's ``options(of:)``, read once: the tests draw thousands of vectors per
    /// command, and matching the usage text for each (a `Regex`, slow unoptimized) was most of
    /// the CPU the hostile-argument tests spent in a debug run.
    static let optionsByCommand: [String: [String]] = Dictionary(
        uniqueKeysWithValues: Livesim.commands.map { ($0.name, options(of: $0)) })

    /// A deterministic vector for `command` (SplitMix64 over `seed`).
    static func vector(for command: Command, seed: UInt64) -> [String] {
        var state = seed
        func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
        let options = optionsByCommand[command.name] ?? Self.options(of: command)
        var words = [command.name]
        for _ in 0..<next(6) {
            switch next(10) {
            case 0...4:
                let option = options.isEmpty ? "--bogus" : options[next(options.count)]
                words += [option, hostileValues[next(hostileValues.count)]]
            case 5:
                words.append(
                    (options.isEmpty ? "--bogus" : options[next(options.count)]) + "="
                        + hostileValues[next(hostileValues.count)])
            case 6: words.append(options.isEmpty ? "--x" : options[next(options.count)])
            case 7: words.append("--" + ["bogus", "seed", "help-me", "", "-"][next(5)])
            default: words.append(hostileValues[next(hostileValues.count)])
            }
        }
        return words
    }

    static let vectorsPerCommand = 600

    @Test(
        "every command: thousands of vectors end in help, a short usage error, or parsed work",
        arguments: Livesim.commands.map(\.name))
    func hostile(name: String) {
        let command = Livesim.commands.first { $0.name == name }!
        var counts: [String: Int] = [:]
        for seed in 0..<UInt64(Self.vectorsPerCommand) {
            let words = Self.vector(for: command, seed: seed &* 7919 &+ UInt64(name.utf8.count))
            switch Livesim.resolve(words, in: .livesim) {
            case .exit(let status, let text):
                #expect(status == 0 || status == 64, "\(words)")
                if status == 64 {
                    #expect(text.count < 500, "\(words): \(text.count) characters")
                    #expect(text.hasPrefix("livesim"), "\(words)")
                }
                counts["\(status)", default: 0] += 1
            case .run(let resolved, _):
                #expect(resolved.name == name)
                counts["run", default: 0] += 1
            }
        }
        // The vectors must reach both sides, or the test tests nothing.
        #expect(counts["64", default: 0] > 0, "\(counts)")
        #expect(counts["0", default: 0] + counts["run", default: 0] > 0, "\(counts)")
    }

    @Test("random words with no command: an unknown command (64) or explore, never a trap")
    func noCommand() {
        for index in 0..<Self.hostileValues.count {
            let words = [Self.hostileValues[index], Self.hostileValues[(index * 7) % Self.hostileValues.count]]
            if case .exit(let status, let text) = Livesim.resolve(words, in: .livesim) {
                #expect(status == 0 || status == 64, "\(words)")
                #expect(text.count < 2000 || status == 0, "\(words)")
            }
        }
    }
}
