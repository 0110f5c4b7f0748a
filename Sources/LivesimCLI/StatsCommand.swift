import BackoffVerification
import Foundation
import LiveConnection
import Statistics

extension Command {
    /// `livesim stats fit|policies|herd`: backoff statistics from the command line.
    static let stats = Command(
        name: "stats",
        summary: "verify backoff delays (fit, policies) and run the herd experiment",
        usage: """
            usage: livesim stats fit FILE --policy NAME [policy options] [--attempt N] [--alpha A] [--tolerance D] [--svg DIR]
                   livesim stats policies [--runs N] [--attempts N] [--seed S] [--alpha A] [--svg DIR]
                   livesim stats herd [--clients 10,50,100,200] [--seeds K] [--seed S] [--connections N] [--outage D] [--capacity N] [--svg DIR]

            fit       checks delays recorded anywhere against a policy's stated distribution and prints a
                      verdict table. FILE holds one delay per line (consecutive attempts 1, 2, 3, … of one
                      client, or all after --attempt N failures), or attempt,delay pairs (a new run starts
                      when the attempt does not follow on). Durations: 1.5s, 250ms, 120us, bare seconds.
            policies  draws every built-in policy with a seed and verifies it, per attempt and pooled.
            herd      the AWS "Exponential Backoff and Jitter" experiment: N clients contending for one
                      record (base 5 ms, cap 2 s, ~10 ms round trip), and an outage that drops N connections.

            fit:      --policy full-jitter | equal-jitter | decorrelated-jitter | proportional-jitter | exponential | table
                      --base D (1ms to 1000h, default 1s)  --cap D (1ms to 1000h, at least --base; default 30s, 120s for
                      proportional)  --multiplier X (1 to 100, default 1.6) and --jitter R (0 to 1, default 0.2) for
                      proportional  --table D,D,… (1 to 1000 delays, 0s to 1000h; entry 0 is the delay after 0 failures)
                      --attempt N (1 to 1000)  --tolerance D (0s to 1s, default 0.5ms: how close to a constant or
                      the cap counts as equal)
            policies: --runs N (2 to 100000, default 1000)  --attempts N (1 to 30, default 8)  --seed S (default 1)
            herd:     --clients N,N,… (1 to 20 counts, each 1 to 1000; default 10,25,50,100,200)  --seeds K (1 to
                      100, default 5)  --seed S (first seed, default 1)  --connections N (1 to 100000, default 1000)
                      --outage D (0s to 1h, default 10s)  --capacity N (admitted per second, 1 to 1000000, default 100)
            all:      --alpha A (0.000001 to 0.5, default 0.01; family-wise, split over the rows by Bonferroni)
                      --svg DIR (also write the pictures, SVG, into DIR)
            Progress goes to standard error.
            """,
        exitCodes: [
            0: "consistent (fit, policies) or done (herd)", 1: "an error (unreadable or malformed FILE, cannot write)",
            2: "fit or policies rejected the stated distribution",
        ],
        parse: { arguments throws(ArgumentError) in
            switch try arguments.subcommand("SUBCOMMAND", from: ["fit", "policies", "herd"]) {
            case "fit": return try StatsFit.parse(&arguments)
            case "policies": return try StatsPolicies.parse(&arguments)
            default: return try StatsHerd.parse(&arguments)
            }
        })
}

/// Shared option parsing for the stats subcommands.
enum StatsOptions {
    static let delays: ClosedRange<Duration> = .milliseconds(1)...(.seconds(1000 * 3600))

    static func policy(_ arguments: inout Arguments) throws(ArgumentError) -> BackoffPolicy {
        let names = [
            "full-jitter", "equal-jitter", "decorrelated-jitter", "proportional-jitter", "exponential", "table",
        ]
        guard let name = try arguments.choice("--policy", from: names) else { throw .missingValue("--policy") }
        let base = try arguments.duration("--base", in: delays)
        let cap = try arguments.duration("--cap", in: delays)
        let multiplier = try arguments.number("--multiplier", in: 1...100, default: 1.6)
        let jitter = try arguments.number("--jitter", in: 0...1, default: 0.2)
        let table = try arguments.durations("--table", in: .zero...(.seconds(1000 * 3600)), count: 1...1000)
        let b = base ?? .seconds(1)
        let c = cap ?? (name == "proportional-jitter" ? .seconds(120) : .seconds(30))
        guard c >= b else {
            throw .conflict("--cap (\(formatDuration(c))) must be at least --base (\(formatDuration(b)))")
        }
        switch name {
        case "full-jitter": return .fullJitter(base: b, cap: c)
        case "equal-jitter": return .equalJitter(base: b, cap: c)
        case "decorrelated-jitter": return .decorrelatedJitter(base: b, cap: c)
        case "exponential": return .exponential(base: b, cap: c)
        case "proportional-jitter":
            return .proportionalJitter(initial: b, multiplier: multiplier, jitter: jitter, maximum: c)
        default:
            guard let table else { throw .conflict("--policy table needs --table D,D,…") }
            return .table(table)
        }
    }

    static func alpha(_ arguments: inout Arguments) throws(ArgumentError) -> Double {
        try arguments.number("--alpha", in: 0.000_001...0.5, default: 0.01)
    }

    /// Writes `chart` as DIR/NAME.svg and says so on standard error.
    static func write(_ chart: Chart, named name: String, into directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = (directory as NSString).appendingPathComponent(name + ".svg")
        try chart.svg().write(toFile: path, atomically: true, encoding: .utf8)
        standardError("wrote \(path)")
    }
}
