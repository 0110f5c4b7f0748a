import Foundation
import LiveConnection
import LiveConnectionSimulator
import LiveConnectionWire
import WireHistory

extension Command {
    /// `livesim judge`: the wire rules over a history a real server recorded.
    static let judge = Command(
        name: "judge",
        summary: "judge a recorded wire history (serve --record, torture) with the wire rules",
        usage: """
            usage: livesim judge HISTORY [--claims FILE | --claims-of NAME] [--tolerance D]

            Reads a wire history (docs/wire-history.md) and judges every client in it with the
            same rules, names and statistics the simulator's wire judge uses (docs/guide.md,
            "Judging any client"): backoff within the claim and its fit, the attempt rate,
            herd spread, one socket at a time, the dead-peer bound, terminal codes, quiet after
            stop, keeps trying, resubscribe and resume. Prints one line per violation (the
            first of each rule per client), then a summary. Never reads the client's code.

              --claims FILE            what the client promises, as JSON (docs/wire-history.md, "Claims");
                                       default: the seed documents' rules (full jitter 1 s..30 s, P + T = 35 s,
                                       connect timeout 10 s, terminal 1008/4003/HTTP 403, refresh 4001/HTTP 401)
              --claims-of NAME         the claims of client NAME, one of explore's (what `livesim client NAME` runs), with
                                       the topic feed
              --tolerance D            added to every time and delay bound for a real clock's lateness,
                                       0s to 1m (default 250ms)
            """,
        exitCodes: [
            0: "every client kept every rule",
            1: "a client broke a rule",
            65: "the history or the claims file cannot be read (the message names the file, the line and why)",
        ],
        parse: { arguments, environment throws(ArgumentError) in
            let claimsPath = try arguments.option("--claims")
            let claimsOf = try arguments.choice("--claims-of", from: environment.clients.names)
            guard claimsPath == nil || claimsOf == nil else {
                throw .conflict("--claims reads a file, --claims-of names a client's claims: give one")
            }
            let tolerance = try arguments.duration(
                "--tolerance", in: .zero...(.seconds(60)), default: .milliseconds(250))
            let path = try arguments.positional("HISTORY")
            try arguments.finish()
            return {
                let file: WireClaimsFile
                do {
                    file = try JudgeCommand.claims(at: claimsPath, of: claimsOf, in: environment.clients)
                } catch {
                    standardError("livesim judge: \(error)")
                    return 65
                }
                let verdict: HistoryVerdict
                do {
                    verdict = try HistoryJudgement(claims: file.claims, topics: file.topics, tolerance: tolerance)
                        .judge(path: path)
                } catch {
                    standardError("livesim judge: \(error)")
                    return 65
                }
                JudgeCommand.print(verdict, path: path)
                return verdict.passed ? 0 : 1
            }
        })
}

enum JudgeCommand {
    /// The claims in the file at `path`, or those of the client `name` in `clients` (with the
    /// topic `feed` it subscribes to), or the defaults; the error names the file.
    static func claims(at path: String?, of name: String? = nil, in clients: ClientCatalogue) throws(ClaimsError)
        -> WireClaimsFile
    {
        if let name {
            do {
                return WireClaimsFile(claims: try clients.kind(named: name).claims, topics: ["feed"])
            } catch {
                throw ClaimsError("\(error)")
            }
        }
        guard let path else { return WireClaimsFile() }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ClaimsError("\(path): cannot read: \(String(cString: strerror(errno)))")
        }
        do {
            return try WireClaimsFile(json: String(decoding: data, as: UTF8.self))
        } catch {
            throw ClaimsError("\(path): \(error.reason)")
        }
    }

    static func print(_ verdict: HistoryVerdict, path: String) {
        for violation in verdict.violations { printLine("violation: " + verdict.describe(violation)) }
        let clients = verdict.clients.map { "\"\($0)\"" }.joined(separator: ", ")
        let broken = Set(verdict.violations.map(\.rule.name)).sorted()
        printLine(
            "\(path): \(verdict.records) records over \(verdict.duration.traceFormatted), "
                + "\(verdict.clients.count) client(s) [\(clients)], \(verdict.checks) checks: "
                + (verdict.passed
                    ? "every rule held"
                    : "\(verdict.violations.count) violation(s) of \(broken.joined(separator: ", "))"))
    }
}
