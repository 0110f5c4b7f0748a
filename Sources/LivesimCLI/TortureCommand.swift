import Foundation
import LiveConnection
import LiveConnectionWire
import LiveTestServer
import WebSocketTransport
import WireHistory

extension Command {
    /// `livesim torture`: any client process against the live server under a seed's faults, judged from the wire.
    static let torture = Command(
        name: "torture",
        summary: "run any client command against the live server under a seed's faults, and judge it",
        usage: """
            usage: livesim torture --seed N --duration D [--claims FILE | --claims-of NAME] [--record FILE] [--tolerance D]
                                   [--fault-profile P] [--fault-interval D] [--port N] [--upstream URL] -- CMD ARGS...
                   livesim torture --seed N --duration D [--fault-profile P] [--fault-interval D] [--upstream URL]
                                   --list-faults

            Starts the live test server on loopback with seed N's fault schedule (as serve does with a seed),
            records its wire history, and runs CMD ARGS... with the server's URL in the environment
            variable LIVESIM_URL and in place of every "{url}" in its arguments. The URL names the
            client (ws://127.0.0.1:PORT/live?client=torture), so keep its query when you add to it.
            CMD runs in a process group of its own; at D the history ends, the group gets SIGTERM and,
            2 s later, SIGKILL. Then the history is judged as `livesim judge` does and each violated rule
            is printed with the history file and the line that runs the same schedule again.

              --seed N                 the fault schedule's seed, 0 to 18446744073709551615
              --duration D             how long CMD runs under the faults, 1s to 24h
              --claims FILE            what the client promises (JSON, docs/wire-history.md); default: the
                                       seed documents' rules
              --claims-of NAME         the claims of client NAME, one of explore's (for `livesim client NAME {url}`), with
                                       the topic feed
              --record FILE            the history's file (default: livesim-torture-seedN.jsonl in the current
                                       directory; an existing one is kept and -2, -3, … is added)
              --tolerance D            added to every bound for a real clock, 0s to 1m (default 250ms)
              --port N                 the server's (or proxy's) port, 0 to 65535 (default 0: the system picks one)
              --upstream URL           your own server (ws[s]://HOST[:PORT]/PATH): torture runs livesim proxy in
                                       front of it instead of the live server, with the same schedule less what
                                       only the live server can do (restart, idle timeout, broadcasts), and
                                       records the client's side of the proxy; an upstream that cannot be
                                       reached is an error before CMD starts
              --list-faults            print the seed's fault schedule, one action a line, and exit 0 (no
                                       command: nothing runs)
            \(RealTimeFaults.usage)
            """,
        exitCodes: [
            0: "the client kept every rule",
            1: "the client broke a rule (each is printed, with the history and the rerun line)",
            2:
                "the run could not be made: the claims file cannot be read, CMD cannot start, the port cannot be bound, the upstream cannot be reached, the history cannot be written",
            130: "interrupted by SIGINT (the command's process group is ended first)",
            143: "interrupted by SIGTERM (likewise)",
        ],
        parse: { arguments, environment throws(ArgumentError) in
            guard let seed = try arguments.seed("--seed") else {
                throw .conflict("torture needs --seed N (the fault schedule)")
            }
            guard let duration = try arguments.duration("--duration", in: .seconds(1)...(.seconds(86_400))) else {
                throw .conflict("torture needs --duration D (how long the command runs)")
            }
            let claimsPath = try arguments.option("--claims")
            let claimsOf = try arguments.choice("--claims-of", from: environment.clients.names)
            guard claimsPath == nil || claimsOf == nil else {
                throw .conflict("--claims reads a file, --claims-of names a client's claims: give one")
            }
            let record = try arguments.option("--record")
            let tolerance = try arguments.duration(
                "--tolerance", in: .zero...(.seconds(60)), default: .milliseconds(250))
            let port = try arguments.integer("--port", in: 0...65535, default: 0)
            let upstream = try arguments.option("--upstream").map { text throws(ArgumentError) in
                try parseWebSocketURL(text)
            }
            guard
                let faults = try RealTimeFaults.parse(
                    &arguments, seed: seed, duration: duration, target: upstream == nil ? .server : .proxy)
            else {
                throw .conflict("torture needs --seed N (the fault schedule)")
            }
            let list = try arguments.flag("--list-faults")
            let command = arguments.commandAfterTerminator()
            try arguments.finish()
            if list {
                guard command.isEmpty else { throw .conflict("--list-faults runs nothing: give no -- CMD") }
                return {
                    for line in faults.listing { printLine(line) }
                    return 0
                }
            }
            guard !command.isEmpty else { throw .missingPositional("-- CMD ARGS...") }
            let run = TortureRun(
                faults: faults, claimsPath: claimsPath, claimsOf: claimsOf, clients: environment.clients,
                record: record, tolerance: tolerance, port: UInt16(port), upstream: upstream, command: command)
            return { await run.run() }
        })
}
