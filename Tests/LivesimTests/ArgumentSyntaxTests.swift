import Testing

@testable import LivesimCLI

/// The argument layer's rules, one at a time: where options may go, `--`, `=`, the duration
/// and seed range syntaxes, and the range messages.
@Suite("livesim argument syntax")
struct ArgumentSyntaxTests {
    @Test("options work before and after positionals, as --name VALUE or --name=VALUE")
    func anyOrder() throws {
        for words in [
            ["--max-message-size", "5", "ws://h/"], ["ws://h/", "--max-message-size", "5"],
            ["--max-message-size=5", "ws://h/"],
        ] {
            var arguments = Arguments(words)
            let size = try arguments.integer("--max-message-size", in: 1...10)
            let url = try arguments.positional("URL")
            try arguments.finish()
            #expect(size == 5 && url == "ws://h/", "\(words)")
        }
    }

    @Test("`--` ends the options: later words are positionals even when they start with -")
    func terminator() throws {
        var arguments = Arguments(["--context", "2", "--", "--weird-name.trace", "-h"])
        #expect(!arguments.wantsHelp)
        #expect(try arguments.integer("--context", in: 0...9) == 2)
        #expect(try arguments.positional("A") == "--weird-name.trace")
        #expect(try arguments.positional("B") == "-h")
        try arguments.finish()
    }

    @Test("an unknown option is named, even before a missing positional")
    func unknownOption() {
        var arguments = Arguments(["--bogus=3", "a.trace"])
        #expect(throws: ArgumentError.unknownOption("--bogus")) { try arguments.positional("A") }
    }

    @Test("a flag given a value, a missing value and a leftover word are errors")
    func leftovers() throws {
        var flagged = Arguments(["--quiet=yes"])
        #expect(throws: ArgumentError.flagWithValue("--quiet", "--quiet=yes")) { try flagged.flag("--quiet") }
        var missing = Arguments(["--seeds"])
        #expect(throws: ArgumentError.missingValue("--seeds")) { try missing.seeds("--seeds") }
        var extra = Arguments(["a", "b"])
        _ = try extra.positional("A")
        #expect(throws: ArgumentError.unexpected("b")) { try extra.finish() }
    }

    @Test(
        "one duration syntax: decimals, units, compounds, bare seconds",
        arguments: [
            ("1.5s", Duration.milliseconds(1500)), ("1500ms", .milliseconds(1500)), ("2m", .seconds(120)),
            ("1h30m", .seconds(5400)), ("0.25h", .seconds(900)), ("250us", .microseconds(250)),
            ("250µs", .microseconds(250)), ("40ns", .nanoseconds(40)), ("25", .seconds(25)),
            ("0.5", .milliseconds(500)),
            ("-1s", .seconds(-1)), ("1.0000000009s", .nanoseconds(1_000_000_000)),
        ])
    func durations(text: String, expected: Duration) throws {
        #expect(try DurationSyntax.parse(text, for: "--d", in: .seconds(-10)...(.seconds(10_000))) == expected)
    }

    @Test(
        "not durations: exponents, infinities, stray words, a bare number after a unit",
        arguments: ["1e300", "inf", "nan", "", "s", "1..5s", "1 s", "1m30", "1x", "--", "1.s.", "0x10s", "١s"])
    func notDurations(text: String) {
        #expect(throws: ArgumentError.invalidValue("--d", text, expected: DurationSyntax.example)) {
            try DurationSyntax.parse(text, for: "--d", in: .zero...(.seconds(1)))
        }
    }

    @Test("a duration outside the range, or beyond 64-bit nanoseconds, names the range")
    func durationRange() {
        let range: ClosedRange<Duration> = .zero...(.seconds(3600))
        for text in ["-1s", "2h", "99999999999999999999h", "9223372037s"] {
            #expect(throws: ArgumentError.outOfRange("--outage", text, range: "between 0s and 1h")) {
                try DurationSyntax.parse(text, for: "--outage", in: range)
            }
        }
    }

    @Test("durations print back in a spelling that parses to the same value")
    func durationRoundTrip() throws {
        for nanoseconds: Int64 in [1, 999, 1_500_000, 1_000_000_000, 5_400_000_000_000, 3_600_000_000_001, -2_000_000] {
            let duration = Duration.nanoseconds(nanoseconds)
            let text = formatDuration(duration)
            #expect(
                try DurationSyntax.parse(text, for: "--d", in: .seconds(-1)...(.seconds(1 << 40))) == duration,
                "\(text)")
        }
    }

    @Test(
        "seed ranges: ..<, .. and - exclude the end, ... includes it, N means 0..<N",
        arguments: [
            ("0..<300", 0..<UInt64(300)), ("0..300", 0..<300), ("0-300", 0..<300), ("0...299", 0..<300),
            ("300", 0..<300),
            ("18446744073709551614...18446744073709551614", 18_446_744_073_709_551_614..<18_446_744_073_709_551_615),
        ])
    func seedRanges(text: String, expected: Range<UInt64>) throws {
        #expect(try SeedRangeSyntax.parse(text, for: "--seeds") == expected)
    }

    @Test("empty seed ranges are refused, not run as a silent pass", arguments: ["0", "5..<5", "5..5", "7-3", "9...8"])
    func emptySeedRanges(text: String) {
        do {
            let range = try SeedRangeSyntax.parse(text, for: "--seeds")
            Issue.record("\(text) was accepted as \(range)")
        } catch {
            #expect(error.description.contains("at least one seed"), "\(error)")
        }
    }

    @Test("too many seeds, a bound beyond 64 bits and malformed ranges are refused with the syntax or the range")
    func badSeedRanges() {
        for text in [
            "0..<100000001", "0...18446744073709551615", "18446744073709551616", "1..2..3", "a-b", "-5", "0..<",
        ] {
            #expect(throws: ArgumentError.self, "\(text)") { try SeedRangeSyntax.parse(text, for: "--seeds") }
        }
    }

    @Test("an integer outside its range says the range; digits beyond 64 bits are out of range, not malformed")
    func integerRanges() {
        var huge = Arguments(["--connections", "99999999999999999999999"])
        #expect(throws: ArgumentError.outOfRange("--connections", "99999999999999999999999", range: "in 1...1000000")) {
            try huge.integer("--connections", in: 1...1_000_000)
        }
        var word = Arguments(["--runs", "ten"])
        #expect(throws: ArgumentError.invalidValue("--runs", "ten", expected: "a whole number in 2...100000")) {
            try word.integer("--runs", in: 2...100_000)
        }
        #expect(
            ArgumentError.outOfRange("--threads", "0", range: "in 1...256").description
                == "--threads must be in 1...256 (got 0)")
    }

    @Test("a quoted word is clipped: a 20 MB argument makes a one-line message of bounded length")
    func clipping() {
        let long = String(repeating: "x", count: 20_000_000) + "\n\u{1B}[2J"
        let message = ArgumentError.unknownOption(long).description
        #expect(message.count < 200)
        #expect(message.contains("(20000005 bytes)"))
        #expect(!message.contains("\n") && !message.contains("\u{1B}"))
    }
}
