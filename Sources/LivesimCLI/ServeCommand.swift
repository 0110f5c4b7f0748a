import Foundation
import LiveConnection
import LiveTestServer
import WebSocketTransport
import WireHistory

extension Command {
    /// `livesim serve`: the package's own WebSocket server, as an echo server or a live test server.
    static let serve = Command(
        name: "serve",
        summary: "run a WebSocket server: echo, or the live contract with test controls",
        usage: """
            usage: livesim serve [--port N] [--host ADDRESS] [--tls-cert FILE --tls-key FILE] [--echo]
                                 [--admin-port N] [--admin-host ADDRESS] [--admin-token TOKEN] [--log-capacity N]
                                 [--max-message-size N] [--handshake-timeout D] [--max-connections N]
                                 [--max-buffered-bytes N] [--idle-timeout D] [--no-deflate | --deflate-params P]
                                 [--duration D] [--record FILE]
                                 [--faults SEED [--fault-profile P] [--fault-interval D]]

            Serves RFC 6455 on the real sockets of WebSocketTransport and prints
            "listening on ws://HOST:PORT" (wss:// with TLS) once it accepts connections. A client
            that offers permessage-deflate (RFC 7692) gets it, on the terms it asked for.
            Without --echo it is the live test server: the live contract (subscribe, resume,
            sequence numbers, replay; docs/server-contract.md), the same code the simulated
            server runs, with its test controls on an admin HTTP endpoint, printed as
            "admin on http://HOST:PORT". Runs until interrupted (SIGINT, SIGTERM) or for
            --duration; then every connection is dropped and it exits 0. See docs/serve.md.

              --port N                 the port, 0 to 65535 (default 0: the system picks one and it is printed)
              --host ADDRESS           an IPv4 or IPv6 literal to bind (default 127.0.0.1)
              --tls-cert FILE          serve wss:// with this certificate chain (PEM); needs --tls-key
              --tls-key FILE           the certificate's private key (PEM)
              --echo                   send every message back as it came (for Autobahn and benchmarks)
              --admin-port N           the admin endpoint's port, 0 to 65535 (default 0: the system picks one)
              --admin-host ADDRESS     the admin endpoint's address (default 127.0.0.1: loopback only; any
                                       other address prints a warning)
              --admin-token TOKEN      every admin request needs "Authorization: Bearer TOKEN" (else 401);
                                       1 to 256 characters of printable ASCII, no spaces (default: none)
              --log-capacity N         messages the replay log keeps, 1 to 10000000 (default 1000)
              --max-message-size N     largest client message in bytes, 1 to 1073741824 (default 1048576;
                                       bigger: close 1009)
              --handshake-timeout D    from TCP accept to a complete request, 1ms to 1h (default 10s)
              --max-connections N      connections served at once, 1 to 1000000; more get HTTP 503 (default 1024)
              --max-buffered-bytes N   bytes held for all clients together (queued to send, partly received),
                                       1048576 to 68719476736; past it the largest holders are dropped
                                       (default 268435456: 256 MiB)
              --idle-timeout D         drop a connection silently (no close frame, no FIN, no pongs) after D
                                       with no frame either way, as a NAT gateway does; 1ms to 1h (default:
                                       never; the admin endpoint's /idle-timeout changes it while serving)
              --no-deflate             decline every permessage-deflate offer (default: grant a valid one)
              --deflate-params P       grant it on these terms of the server's, written as in the header,
                                       e.g. "server_max_window_bits=10; client_no_context_takeover"
              --duration D             exit after D, 1ms to 1000h
              --record FILE            write the wire history to FILE as it happens (JSON lines, docs/wire-history.md):
                                       every attempt, open, frame, ping, pong, close and reset, with its client
                                       (?client=ID, X-Livesim-Client, or the source address), and every fault
                                       applied; `livesim judge FILE` judges it
              --faults SEED            apply the seed's server faults in real time (the simulator's swarm schedule
                                       for the seed, kept to what a real server can do: refuse, handshake status
                                       and hang, close, terminal close, reset, freeze, latency, restart, idle
                                       timeout, accept-then-close, broadcasts), each printed as it is applied;
                                       live mode only; the schedule covers --duration (default: its first hour)
            \(RealTimeFaults.usage)
            """,
        exitCodes: [
            0: "stopped by SIGINT, SIGTERM or --duration (every connection dropped)",
            1: "an error: an address cannot be bound, the TLS files cannot be read, the history cannot be written",
        ],
        parse: { arguments throws(ArgumentError) in
            var configuration = WebSocketServer.Configuration()
            configuration.port = UInt16(
                try arguments.integer("--port", in: 0...65535, default: Int(configuration.port)))
            if let host = try arguments.option("--host") { configuration.host = host }
            let certificate = try arguments.option("--tls-cert")
            let key = try arguments.option("--tls-key")
            let echo = try arguments.flag("--echo")
            let adminPort = UInt16(try arguments.integer("--admin-port", in: 0...65535, default: 0))
            let adminHost = try arguments.option("--admin-host") ?? "127.0.0.1"
            let adminToken = try arguments.option("--admin-token")
            if let adminToken, let problem = AdminEndpoint.tokenProblem(adminToken) {
                // The token is a secret: the message names the rule, not the value.
                throw .conflict("--admin-token \(problem)")
            }
            let logCapacity = try arguments.integer("--log-capacity", in: 1...10_000_000, default: 1_000)
            configuration.maxMessageSize = try arguments.integer(
                "--max-message-size", in: 1...(1 << 30), default: configuration.maxMessageSize)
            configuration.handshakeTimeout = try arguments.duration(
                "--handshake-timeout", in: .milliseconds(1)...(.seconds(3600)), default: configuration.handshakeTimeout)
            configuration.maxConnections = try arguments.integer(
                "--max-connections", in: 1...1_000_000, default: configuration.maxConnections)
            configuration.maxBufferedBytes = try arguments.integer(
                "--max-buffered-bytes", in: (1 << 20)...(1 << 36), default: configuration.maxBufferedBytes)
            let idleTimeout = try arguments.duration("--idle-timeout", in: .milliseconds(1)...(.seconds(3600)))
            let noDeflate = try arguments.flag("--no-deflate")
            let deflateParameters = try arguments.option("--deflate-params")
            let duration = try arguments.duration("--duration", in: Arguments.runDurations)
            let record = try arguments.option("--record")
            let faultSeed = try arguments.seed("--faults")
            let faults = try RealTimeFaults.parse(&arguments, seed: faultSeed, duration: duration ?? .seconds(3600))
            try arguments.finish()
            if echo, faults != nil { throw .conflict("--faults needs the live server: not with --echo") }
            guard (certificate == nil) == (key == nil) else {
                throw .conflict(
                    "--tls-cert and --tls-key go together (got only \(certificate == nil ? "--tls-key" : "--tls-cert"))"
                )
            }
            guard !(noDeflate && deflateParameters != nil) else {
                throw .conflict("--no-deflate declines compression; --deflate-params sets its terms: give one")
            }
            // A client opts in by offering it; a test server should answer as most servers do.
            configuration.compression = noDeflate ? nil : try parseDeflateParameters(deflateParameters ?? "")
            return { [configuration] in
                var configuration = configuration
                if let certificate, let key {
                    configuration.tls = try TLSServerContext(certificateChainFile: certificate, privateKeyFile: key)
                }
                let scheme = configuration.tls == nil ? "ws" : "wss"
                // The file is checked before the server binds: its problem is reported first.
                let history = try record.map { path throws(WireHistoryError) in
                    try HistoryRecording(
                        path: path, mode: echo ? "echo" : "live", configuration: configuration,
                        faults: faults?.schedule)
                }
                if echo {
                    let server = try listening(configuration) {
                        try WebSocketServer(configuration: configuration, handler: EchoHandler(), observer: history)
                    }
                    try history?.started(
                        url: "\(scheme)://\(bracketed(configuration.host)):\(server.port)", idleTimeout: idleTimeout)
                    if let idleTimeout { server.setIdleTimeout(idleTimeout) }
                    printLine("listening on \(scheme)://\(bracketed(configuration.host)):\(server.port)")
                    await serveUntilStopped(duration: duration) {
                        await withDiscardingTaskGroup { group in
                            group.addTask { await server.run() }
                            if let history { group.addTask { await history.drain() } }
                        }
                    }
                    history?.end()
                    return try history?.finish() ?? 0
                }
                let live = try listening(configuration) {
                    try LiveTestServer(configuration: configuration, logCapacity: logCapacity, observer: history)
                }
                try history?.started(
                    url: "\(scheme)://\(bracketed(configuration.host)):\(live.port)", idleTimeout: idleTimeout)
                if let idleTimeout { live.server.setIdleTimeout(idleTimeout) }
                let adminAddress = WebSocketServer.Configuration(host: adminHost, port: adminPort)
                let admin = try listening(adminAddress) {
                    try AdminEndpoint.server(controlling: live, host: adminHost, port: adminPort, token: adminToken)
                }
                if !AdminEndpoint.isLoopback(adminHost) {
                    standardError(
                        "warning: the admin endpoint on \(bracketed(adminHost)) can be reached from other machines,"
                            + " and anyone who reaches it can reset every connection"
                            + (adminToken == nil ? "; give --admin-token" : ""))
                }
                printLine("listening on \(scheme)://\(bracketed(configuration.host)):\(live.port)")
                printLine("admin on http://\(bracketed(adminHost)):\(admin.port)")
                await serveUntilStopped(duration: duration) {
                    await withDiscardingTaskGroup { group in
                        group.addTask { await live.run() }
                        group.addTask { await admin.run() }
                        if let faults { group.addTask { await faults.run(on: live, announce: printLine) } }
                        if let history { group.addTask { await history.drain() } }
                    }
                }
                history?.end()
                return try history?.finish() ?? 0
            }
        })

    /// Binds with `make`; a failure names the address it could not listen on
    /// ("cannot listen on 127.0.0.1:9002: error EADDRINUSE (address already in use)").
    private static func listening<Server>(
        _ configuration: WebSocketServer.Configuration, _ make: () throws -> Server
    ) throws -> Server {
        try listening(configuration.host, configuration.port, make)
    }

    static func listening<Server>(_ host: String, _ port: UInt16, _ make: () throws -> Server) throws -> Server {
        do {
            return try make()
        } catch let error as TransportError {
            throw ListenFailure(address: "\(bracketed(host)):\(port)", error: error)
        }
    }

    /// An IPv6 literal in brackets, as a URL needs it.
    static func bracketed(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }

    /// Runs `body` until SIGINT or SIGTERM, or the duration; then cancels it and waits for it.
    static func serveUntilStopped(duration: Duration?, _ body: @escaping @Sendable () async -> Void) async {
        let signals = InterruptSignals()
        defer { signals.restoreDefaults() }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await body() }
            group.addTask {
                for await _ in signals.signals { return }
            }
            if let duration { group.addTask { try? await ContinuousClock().sleep(for: duration) } }
            await group.next()
            group.cancelAll()
        }
    }
}

/// Prints a line to standard output at once (a script waiting for "listening on" reads it through a pipe).
func printLine(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// A server that could not bind its address: the address and the cause, in one line.
struct ListenFailure: Error, CustomStringConvertible {
    var address: String
    var error: TransportError
    var description: String { "cannot listen on \(address): \(error)" }
}
