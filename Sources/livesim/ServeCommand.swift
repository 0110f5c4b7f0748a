import Dispatch
import Foundation
import LiveConnection
import WebSocketTransport

extension Command {
    /// `livesim serve`: the package's own WebSocket server, as an echo server or a live test server.
    static let serve = Command(
        name: "serve",
        summary: "run a WebSocket server: echo, or the live contract with test controls",
        usage: """
            usage: livesim serve [--port N] [--host ADDRESS] [--tls-cert FILE --tls-key FILE] [--echo]
                                 [--max-message-size N] [--handshake-timeout S] [--max-connections N]
                                 [--duration S]

            Serves RFC 6455 on the real sockets of WebSocketTransport and prints one line,
            "listening on ws://HOST:PORT" (wss:// with TLS), once it accepts connections.
            Runs until interrupted (SIGINT, SIGTERM) or for --duration seconds; then every
            connection is dropped and it exits 0. See docs/serve.md.

              --port N                 the port (default 0: the system picks one and it is printed)
              --host ADDRESS           an IPv4 or IPv6 literal to bind (default 127.0.0.1)
              --tls-cert FILE          serve wss:// with this certificate chain (PEM); needs --tls-key
              --tls-key FILE           the certificate's private key (PEM)
              --echo                   send every message back as it came (for Autobahn and benchmarks)
              --max-message-size N     largest client message in bytes (default 1048576; bigger: close 1009)
              --handshake-timeout S    seconds from TCP accept to a complete request (default 10)
              --max-connections N      connections served at once; more get HTTP 503 (default 1024)
              --duration S             exit after S seconds
            """,
        run: { arguments in
            var configuration = WebSocketServer.Configuration()
            if let port = try arguments.option("--port", parse: { UInt16($0) }) { configuration.port = port }
            if let host = try arguments.option("--host") { configuration.host = host }
            let certificate = try arguments.option("--tls-cert")
            let key = try arguments.option("--tls-key")
            let echo = arguments.flag("--echo")
            if let size = try arguments.option("--max-message-size", parse: { Int($0).flatMap { $0 > 0 ? $0 : nil } }) {
                configuration.maxMessageSize = size
            }
            if let seconds = try arguments.option("--handshake-timeout", parse: seconds) {
                configuration.handshakeTimeout = seconds
            }
            if let count = try arguments.option(
                "--max-connections", parse: { Int($0).flatMap { (1...1_000_000).contains($0) ? $0 : nil } })
            {
                configuration.maxConnections = count
            }
            let duration = try arguments.option("--duration", parse: seconds)
            try arguments.finish()
            switch (certificate, key) {
            case (nil, nil): break
            case (let certificate?, let key?):
                configuration.tls = try TLSServerContext(certificateChainFile: certificate, privateKeyFile: key)
            default: throw ArgumentError.missingValue(certificate == nil ? "--tls-cert" : "--tls-key")
            }
            guard echo else { throw CommandFailure("only --echo is available in this build") }
            let server = try WebSocketServer(configuration: configuration, handler: EchoHandler())
            let scheme = configuration.tls == nil ? "ws" : "wss"
            let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
            printLine("listening on \(scheme)://\(host):\(server.port)")
            await serveUntilStopped(duration: duration) { await server.run() }
            return 0
        })

    /// Seconds as a positive finite number, at most a year.
    private static func seconds(_ text: String) -> Duration? {
        guard let value = Double(text), value > 0, value <= 31_536_000 else { return nil }
        return .nanoseconds(Int64(value * 1e9))
    }

    /// Runs `body` until SIGINT or SIGTERM, or the duration; then cancels it and waits for it.
    static func serveUntilStopped(duration: Duration?, _ body: @escaping @Sendable () async -> Void) async {
        let (stops, stop) = AsyncStream.makeStream(of: Int32.self)
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number)
            source.setEventHandler { stop.yield(number) }
            source.resume()
            sources.append(source)
        }
        defer { sources.forEach { $0.cancel() } }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await body() }
            group.addTask {
                for await _ in stops { return }
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
