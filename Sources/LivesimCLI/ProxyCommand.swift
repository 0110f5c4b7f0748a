import Foundation
import LiveConnection
import LiveTestServer
import WebSocketTransport
import WireHistory

extension Command {
    /// `livesim proxy`: a WebSocket proxy in front of the user's own server, with `serve`'s faults.
    static let proxy = Command(
        name: "proxy",
        summary: "run a fault proxy in front of your own WebSocket server",
        usage: """
            usage: livesim proxy --upstream ws[s]://HOST[:PORT][/PATH] [--listen PORT] [--host ADDRESS]
                                 [--tls-cert FILE --tls-key FILE] [--upstream-ca FILE]
                                 [--admin-port N] [--admin-host ADDRESS] [--admin-token TOKEN]
                                 [--max-message-size N] [--handshake-timeout D] [--connect-timeout D]
                                 [--max-connections N] [--max-buffered-bytes N] [--duration D] [--record FILE]
                                 [--faults SEED [--fault-profile P] [--fault-interval D]]

            Listens for WebSocket clients and passes each one's handshake and frames on to the
            upstream server, frame by frame, both ways (pings and pongs too). Its admin HTTP
            endpoint injects livesim serve's faults (close with a code, reset, freeze and thaw,
            refuse, handshake status, hang, accept-then-close, latency, slicing) into every
            connection, or into one client's with client=ID: a client names itself with
            ?client=ID in its URL or an X-Livesim-Client header, else its source address is its
            name. The upstream is contacted once at start: if it cannot be reached the proxy
            exits 1 saying why. Prints "listening on ws://HOST:PORT" and "admin on
            http://HOST:PORT"; runs until interrupted (SIGINT, SIGTERM) or for --duration, then
            drops every connection and exits 0. See docs/proxy.md.

              --upstream URL           the server to pass clients on to: ws:// or wss://, with a host; its path
                                       (if any) replaces the client's, the client's query is passed on
              --listen PORT            the port clients connect to, 0 to 65535 (default 0: the system picks one)
              --host ADDRESS           an IPv4 or IPv6 literal to listen on (default 127.0.0.1)
              --tls-cert FILE          serve wss:// to clients with this certificate chain (PEM); needs --tls-key
              --tls-key FILE           the certificate's private key (PEM)
              --upstream-ca FILE       trust this CA certificate (PEM) for a wss:// upstream, besides the system's
              --admin-port N           the admin endpoint's port, 0 to 65535 (default 0: the system picks one)
              --admin-host ADDRESS     the admin endpoint's address (default 127.0.0.1: loopback only; any
                                       other address prints a warning)
              --admin-token TOKEN      every admin request needs "Authorization: Bearer TOKEN" (else 401);
                                       1 to 256 characters of printable ASCII, no spaces (default: none)
              --max-message-size N     largest message relayed either way, in bytes, 1 to 1073741824 (default
                                       1048576; bigger: close 1009 to its sender)
              --handshake-timeout D    from TCP accept to a client's complete request, 1ms to 1h (default 10s)
              --connect-timeout D      the upstream's connection and handshake, 1ms to 1h (default 10s; past
                                       it the client gets HTTP 504)
              --max-connections N      connections at once, 1 to 1000000; more get HTTP 503 (default 1024)
              --max-buffered-bytes N   bytes held for all connections together (queued frames, unfinished
                                       messages), 1048576 to 68719476736; past it the largest holders are
                                       reset (default 268435456: 256 MiB)
              --duration D             exit after D, 1ms to 1000h
              --record FILE            write the wire history to FILE as it happens, as serve --record does
                                       (docs/wire-history.md): what each client did on its link to the proxy,
                                       with its client name, and every fault with the client it was aimed at;
                                       `livesim judge FILE` judges it
              --faults SEED            apply the seed's fault schedule to every connection in real time, as
                                       serve --faults does, without the kinds only the live server can do
                                       (restart, idle timeout, broadcasts); the schedule covers --duration
                                       (default: its first hour)
            \(RealTimeFaults.usage)
            """,
        exitCodes: [
            0: "stopped by SIGINT, SIGTERM or --duration (every connection dropped)",
            1:
                "an error: the upstream cannot be reached, an address cannot be bound, a file cannot be read, the history cannot be written",
        ],
        parse: { arguments throws(ArgumentError) in
            guard let upstreamText = try arguments.option("--upstream") else {
                throw .conflict("--upstream is required: the ws:// or wss:// URL of the server to proxy")
            }
            let upstream = try parseWebSocketURL(upstreamText)
            var configuration = WebSocketProxy.Configuration(upstream: upstream)
            configuration.port = UInt16(try arguments.integer("--listen", in: 0...65535, default: 0))
            if let host = try arguments.option("--host") { configuration.host = host }
            let certificate = try arguments.option("--tls-cert")
            let key = try arguments.option("--tls-key")
            let caFile = try arguments.option("--upstream-ca")
            let adminPort = UInt16(try arguments.integer("--admin-port", in: 0...65535, default: 0))
            let adminHost = try arguments.option("--admin-host") ?? "127.0.0.1"
            let adminToken = try arguments.option("--admin-token")
            if let adminToken, let problem = AdminEndpoint.tokenProblem(adminToken) {
                // The token is a secret: the message names the rule, not the value.
                throw .conflict("--admin-token \(problem)")
            }
            configuration.maxMessageSize = try arguments.integer(
                "--max-message-size", in: 1...(1 << 30), default: configuration.maxMessageSize)
            configuration.handshakeTimeout = try arguments.duration(
                "--handshake-timeout", in: .milliseconds(1)...(.seconds(3600)), default: configuration.handshakeTimeout)
            configuration.connectTimeout = try arguments.duration(
                "--connect-timeout", in: .milliseconds(1)...(.seconds(3600)), default: configuration.connectTimeout)
            configuration.maxConnections = try arguments.integer(
                "--max-connections", in: 1...1_000_000, default: configuration.maxConnections)
            configuration.maxBufferedBytes = try arguments.integer(
                "--max-buffered-bytes", in: (1 << 20)...(1 << 36), default: configuration.maxBufferedBytes)
            let duration = try arguments.duration("--duration", in: Arguments.runDurations)
            let record = try arguments.option("--record")
            let faultSeed = try arguments.seed("--faults")
            let faults = try RealTimeFaults.parse(
                &arguments, seed: faultSeed, duration: duration ?? .seconds(3600), target: .proxy)
            try arguments.finish()
            guard (certificate == nil) == (key == nil) else {
                throw .conflict(
                    "--tls-cert and --tls-key go together (got only \(certificate == nil ? "--tls-key" : "--tls-cert"))"
                )
            }
            return { [configuration] in
                var configuration = configuration
                if let certificate, let key {
                    configuration.tls = try TLSServerContext(certificateChainFile: certificate, privateKeyFile: key)
                }
                if let caFile {
                    let pem: String
                    do {
                        pem = try String(contentsOfFile: caFile, encoding: .utf8)
                    } catch {
                        throw CommandFailure("cannot read the upstream CA file: \(describe(error))")
                    }
                    configuration.upstreamTLS = TLSConfiguration(trusting: [pem])
                }
                // The file is checked before the proxy binds: its problem is reported first.
                let history = try record.map { path throws(WireHistoryError) in
                    try HistoryRecording(path: path, mode: "proxy", proxy: configuration, faults: faults?.schedule)
                }
                let proxy = try listening(configuration.host, configuration.port) {
                    try WebSocketProxy(configuration: configuration, observer: history)
                }
                do {
                    try await proxy.checkUpstream()
                } catch {
                    throw CommandFailure("cannot reach the upstream \(upstream.absoluteString): \(error)")
                }
                let scheme = configuration.tls == nil ? "ws" : "wss"
                try history?.started(url: "\(scheme)://\(bracketed(configuration.host)):\(proxy.port)")
                let admin = try listening(adminHost, adminPort) {
                    try AdminEndpoint.server(controlling: proxy, host: adminHost, port: adminPort, token: adminToken)
                }
                if !AdminEndpoint.isLoopback(adminHost) {
                    standardError(
                        "warning: the admin endpoint on \(bracketed(adminHost)) can be reached from other machines,"
                            + " and anyone who reaches it can reset every connection"
                            + (adminToken == nil ? "; give --admin-token" : ""))
                }
                printLine("listening on \(scheme)://\(bracketed(configuration.host)):\(proxy.port)")
                printLine("admin on http://\(bracketed(adminHost)):\(admin.port)")
                await serveUntilStopped(duration: duration) {
                    await withDiscardingTaskGroup { group in
                        group.addTask { await proxy.run() }
                        group.addTask { await admin.run() }
                        if let faults { group.addTask { await faults.run(on: proxy, announce: printLine) } }
                        if let history { group.addTask { await history.drain() } }
                    }
                }
                history?.end()
                return try history?.finish() ?? 0
            }
        })
}
