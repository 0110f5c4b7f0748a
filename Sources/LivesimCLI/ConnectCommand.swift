import Foundation
import LiveConnection
import LiveConnectionSimulator
import WebSocketTransport

extension Command {
    /// `livesim connect URL`: the manager over the real transport, printing what it does.
    static let connect = Command(
        name: "connect",
        summary: "connect to a live server with the reconnecting manager and print its events",
        usage: """
            usage: livesim connect URL [--topic T]... [--header K:V]... [--ping-interval D] [--ping-timeout D]
                                       [--duration D] [--max-attempts N] [--ca FILE] [--max-message-size N] [--deflate]
                                       [--check [--tolerance D]] [--variant NAME]

            Runs a ConnectionManager over the real WebSocket transport and prints every phase
            change and message, one line each, with the seconds since start. Topics are
            subscribed on every connection (JSON protocol: {"type":"subscribe","topic":T}).
            Runs until interrupted (Ctrl-C: sends a close frame, prints "stopped", exits 130),
            for --duration, or until the manager stops for good (e.g. close 1008 or 4003, or
            --max-attempts failures since a connection last answered a heartbeat).

              --topic T                subscribe to T (repeatable, at most 1000)
              --ping-interval D        heartbeat interval, 10ms to 1h (default 25s)
              --ping-timeout D         heartbeat timeout, 10ms to 1h (default 10s)
              --duration D             disconnect (close 1000) and exit after D, 1ms to 1000h
              --max-attempts N         give up after N failures, 1 to 1000000 (default 10); only a
                                       connection that answers a heartbeat resets the count
              --check                  judge the run with the simulator's invariants, on the real clock:
                                       each violation is printed as "violation: <when> <invariant>: <what>"
                                       (explore's words), the run stops and exits 3 (docs/cli.md says which
                                       invariants a real run judges, and how)
              --tolerance D            with --check, added to every time bound for late timers,
                                       0s to 1m (default 1s)
              --variant NAME           run a deliberately broken manager (the simulator's planted bugs), to
                                       see --check catch it: \(SimulationUsage.variants)
            \(TransportOptions.usage)
            """,
        exitCodes: [
            0: "ran for --duration and closed",
            1:
                "the manager stopped for good (a terminal close, or gave up after N attempts), or an error (unreadable --ca)",
            3: "--check: an invariant was violated (printed as violation lines); overrides the other statuses",
            130: "interrupted (SIGINT, Ctrl-C) after sending the close frame",
            143: "terminated (SIGTERM) after sending the close frame",
        ],
        parse: { arguments throws(ArgumentError) in
            let topics = try arguments.options("--topic")
            guard topics.count <= 1000 else {
                throw .outOfRange("--topic", "\(topics.count) topics", range: "given at most 1000 times")
            }
            var configuration = ConnectionConfiguration()
            let heartbeats: ClosedRange<Duration> = .milliseconds(10)...(.seconds(3600))
            configuration.heartbeatInterval = try arguments.duration(
                "--ping-interval", in: heartbeats, default: configuration.heartbeatInterval)
            configuration.heartbeatTimeout = try arguments.duration(
                "--ping-timeout", in: heartbeats, default: configuration.heartbeatTimeout)
            let duration = try arguments.duration("--duration", in: Arguments.runDurations)
            let maxAttempts = try arguments.integer("--max-attempts", in: 1...1_000_000, default: 10)
            // In 1...1000000, so the manager's own check (at least 1) cannot refuse it.
            try? configuration.limitAttempts(to: maxAttempts)
            let checks = try arguments.flag("--check")
            let tolerance = try arguments.duration("--tolerance", in: .zero...(.seconds(60)))
            guard checks || tolerance == nil else { throw .conflict("--tolerance needs --check") }
            let variant = try arguments.variant()
            let options = try TransportOptions(&arguments)
            let url = try parseWebSocketURL(try arguments.positional("URL"))
            try arguments.finish()
            return { [configuration] in
                let session = try ConnectSession.make(
                    configuration: configuration, options: options, checks: checks,
                    tolerance: tolerance ?? ConnectCheck.defaultTolerance, variant: variant)
                return await session.run(
                    endpoint: Endpoint(url: url, headers: options.headers), topics: topics, duration: duration)
            }
        })
}
