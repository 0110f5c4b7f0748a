import Foundation
import LiveConnection
import LiveConnectionWire
import WebSocketTransport

extension Command {
    /// `livesim client`: one of `explore --client`'s clients on real sockets and the real clock.
    static let client = Command(
        name: "client",
        summary: "run one of explore's clients (the manager or a victim) over real sockets, for torture",
        usage: { environment in
            """
            usage: livesim client NAME URL [--topic T]... [--seed N] [--duration D]

            Runs the named client of `livesim explore` (the same names) against URL over the real WebSocket
            transport and the real clock, exactly as the simulator runs it against the simulated
            server: started once (its app's "start"), subscribed to each topic, then left alone.
            Made to be tortured: `livesim torture` with the claims of NAME, running
            `livesim client NAME {url}`, judges it from the wire with its own claims, with the rules
            and words the simulator uses (docs/cli.md). Runs until SIGINT, SIGTERM or --duration. Clients:
            \(environment.clientHelp)

              --topic T                subscribe to T on every connection (repeatable, at most 1000; default: feed)
              --seed N                 the client's random seed (its jitter), 0 to 18446744073709551615 (default 1)
              --duration D             stop after D, 1ms to 1000h
            """
        },
        exitCodes: [0: "stopped by SIGINT, SIGTERM or --duration"],
        parse: { arguments, environment throws(ArgumentError) in
            let topics = try arguments.options("--topic")
            guard topics.count <= 1000 else { throw .conflict("at most 1000 --topic (got \(topics.count))") }
            let seed = try arguments.seed("--seed") ?? 1
            let duration = try arguments.duration("--duration", in: Arguments.runDurations)
            let name = try arguments.positional("NAME")
            let text = try arguments.positional("URL")
            try arguments.finish()
            let kind: ClientKind
            do {
                kind = try environment.clients.kind(named: name)
            } catch {
                throw .conflict("\(error)")
            }
            guard let url = URL(string: text), ["ws", "wss"].contains(url.scheme?.lowercased() ?? "") else {
                throw .conflict("URL must be ws:// or wss:// (got \(text))")
            }
            let context = WireClientContext(
                transport: WebSocketTransport(), clock: ContinuousClock(), seed: seed,
                topics: topics.isEmpty ? ["feed"] : topics)
            return {
                let client = kind.make(context)
                await Command.serveUntilStopped(duration: duration) {
                    await withDiscardingTaskGroup { group in
                        group.addTask { await client.run() }
                        await client.perform(.connect(Endpoint(url: url)))
                    }
                }
                return 0
            }
        })
}
