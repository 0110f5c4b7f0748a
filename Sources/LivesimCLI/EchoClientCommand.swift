import Foundation
import LiveConnection
import WebSocketTransport

extension Command {
    /// `livesim echo-client URL`: a conformance driver in the manner of Autobahn's client drivers.
    static let echoClient = Command(
        name: "echo-client",
        summary: "echo every message from a WebSocket server, then exit with its close",
        usage: """
            usage: livesim echo-client URL [--timeout D] [--header K:V]... [--ca FILE] [--max-message-size N] [--deflate]

            Connects with the real transport, sends back every message it receives (same type,
            same bytes) and completes the close handshake. Prints "closed CODE REASON" or the
            error. A server that stops talking is not waited for forever: the handshake, each
            wait for the next frame and each send must finish within --timeout.

              --timeout D              longest wait for the server, 1ms to 1h (default 30s)
            \(TransportOptions.usage)
            """,
        exitCodes: [
            0: "the server closed with 1000 (or no code)",
            1: "an error: reset, protocol violation, failed handshake, no frame within --timeout",
            2: "the server closed with another code",
        ],
        parse: { arguments throws(ArgumentError) in
            let timeout = try arguments.duration(
                "--timeout", in: .milliseconds(1)...(.seconds(3600)), default: .seconds(30))
            let options = try TransportOptions(&arguments)
            let url = try parseWebSocketURL(try arguments.positional("URL"))
            try arguments.finish()
            return {
                let transport = WebSocketTransport(configuration: try options.configuration(timeout: timeout))
                return await echo(Endpoint(url: url, headers: options.headers), transport: transport, timeout: timeout)
            }
        })

    private static func echo(_ endpoint: Endpoint, transport: WebSocketTransport, timeout: Duration) async -> Int32 {
        do {
            let connection = try await transport.open(endpoint)
            let deadline = PeerDeadline(limit: timeout)
            let outcome = try await deadline.watching { () async throws -> Int32 in
                while true {
                    let event = try await deadline.wait("no frame from the server") { try await connection.receive() }
                    switch event {
                    case .message(let message):
                        try await deadline.wait("the server did not take a message") {
                            try await connection.send(message)
                        }
                    case .pong:
                        continue  // this client sends no pings
                    case .closed(let code, let reason):
                        print("closed \(code) \(clipped(reason, to: 200))")
                        return code == .normal || code == CloseCode(1005) ? 0 : 2
                    }
                }
            }
            switch outcome {
            case .finished(let status):
                return status
            case .expired(let reason):
                await connection.close(code: .goingAway, reason: "\(reason) within \(formatDuration(timeout))")
                print("timed out: \(reason) within \(formatDuration(timeout))")
                return 1
            }
        } catch {
            print(clipped(describe(error), to: 400))
            return 1
        }
    }
}
