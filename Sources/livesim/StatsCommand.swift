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
                   livesim stats herd [--clients 10,50,100,200] [--seeds K] [--connections N] [--outage D] [--capacity N] [--svg DIR]

            fit       checks delays recorded anywhere against a policy's stated distribution and prints a
                      verdict table. FILE holds one delay per line (consecutive attempts 1, 2, 3, … of one
                      client, or all after --attempt N failures), or attempt,delay pairs (a new run starts
                      when the attempt does not follow on). Durations: 1.5s, 250ms, 120us, bare seconds.
                      Exit status 0 when consistent, 2 when rejected.
            policies  draws every built-in policy with a seed and verifies it, per attempt and pooled.
            herd      the AWS "Exponential Backoff and Jitter" experiment: N clients contending for one
                      record (base 5 ms, cap 2 s, ~10 ms round trip), and an outage that drops N connections.

            policy options: --policy full-jitter | equal-jitter | decorrelated-jitter | proportional-jitter
                            | exponential | table;  --base D (default 1s) --cap D (default 30s, 120s for
                            proportional);  --multiplier X (1.6) --jitter R (0.2) for proportional;
                            --table D,D,… for table (entry 0 is the delay after 0 failures)
            --alpha A       family-wise significance level (default 0.01), split over the rows (Bonferroni)
            --tolerance D   how close to a constant or the cap counts as equal (default 0.5ms)
            --svg DIR       also write the pictures (SVG) into DIR
            """,
        run: { arguments in
            guard let sub = arguments.optionalPositional() else {
                throw ArgumentError.missingPositional("SUBCOMMAND (fit, policies or herd)")
            }
            switch sub {
            case "fit": return try StatsFit.run(&arguments)
            case "policies": return try StatsPolicies.run(&arguments)
            case "herd": return try StatsHerd.run(&arguments)
            default: throw ArgumentError.invalidValue("SUBCOMMAND", sub)
            }
        })
}

/// Shared option parsing for the stats subcommands.
enum StatsOptions {
    static func policy(_ arguments: inout Arguments) throws(ArgumentError) -> BackoffPolicy {
        guard let name = try arguments.option("--policy") else { throw .missingValue("--policy") }
        let base = try arguments.option("--base", parse: DelayFile.parseDuration)
        let cap = try arguments.option("--cap", parse: DelayFile.parseDuration)
        let multiplier = try arguments.option("--multiplier", parse: { Double($0) })
        let jitter = try arguments.option("--jitter", parse: { Double($0) })
        let table = try arguments.option(
            "--table",
            parse: { text -> [Duration]? in
                let entries = text.split(separator: ",").map { DelayFile.parseDuration(String($0)) }
                return entries.isEmpty || entries.contains(where: { $0 == nil || $0! < .zero })
                    ? nil : entries.compactMap { $0 }
            })
        for value in [base, cap].compactMap({ $0 }) where value <= .zero {
            throw .invalidValue("--base/--cap", "\(value)")
        }
        let b = base ?? .seconds(1), c = cap ?? .seconds(30)
        switch name {
        case "full-jitter": return .fullJitter(base: b, cap: c)
        case "equal-jitter": return .equalJitter(base: b, cap: c)
        case "decorrelated-jitter": return .decorrelatedJitter(base: b, cap: c)
        case "exponential": return .exponential(base: b, cap: c)
        case "proportional-jitter":
            let m = multiplier ?? 1.6, r = jitter ?? 0.2
            guard m >= 1 else { throw .invalidValue("--multiplier", "\(m)") }
            guard (0...1).contains(r) else { throw .invalidValue("--jitter", "\(r)") }
            return .proportionalJitter(initial: b, multiplier: m, jitter: r, maximum: cap ?? .seconds(120))
        case "table":
            guard let table else { throw .missingValue("--table") }
            return .table(table)
        default:
            throw .invalidValue("--policy", name)
        }
    }

    static func alpha(_ arguments: inout Arguments) throws(ArgumentError) -> Double {
        let alpha = try arguments.option("--alpha", parse: { Double($0) }) ?? 0.01
        guard alpha > 0 && alpha < 1 else { throw .invalidValue("--alpha", "\(alpha)") }
        return alpha
    }

    /// Writes `chart` as DIR/NAME.svg and says so on standard error.
    static func write(_ chart: Chart, named name: String, into directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = (directory as NSString).appendingPathComponent(name + ".svg")
        try chart.svg().write(toFile: path, atomically: true, encoding: .utf8)
        standardError("wrote \(path)")
    }
}
