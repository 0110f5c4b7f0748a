import Foundation
import LiveConnection
import WebSocketTransport

extension Command {
    /// `livesim echo-client URL`: a conformance driver in the manner of Autobahn's client drivers.
    static let echoClient = Command(
        name: "echo-client",
        summary: "echo every message from a WebSocket server, then exit with its close",
        usage: """
            usage: livesim echo-client URL [--header K:V]... [--ca FILE] [--max-message-size N]

            Connects with the real transport, sends back every message it receives (same type,
            same bytes) and completes the close handshake. Prints "closed CODE REASON" or the
            error. Exit status: 0 after a close with 1000 (or no code), 2 after any other close
            code, 1 after an error (reset, protocol violation, failed handshake).

            \(TransportOptions.usage)
            """,
        run: { arguments in
            let url = try parseWebSocketURL(try arguments.positional("URL"))
            let options = try TransportOptions(&arguments)
            try arguments.finish()
            return await echo(url: url, options: options)
        })

    private static func echo(url: URL, options: TransportOptions) async -> Int32 {
        let transport = WebSocketTransport(configuration: options.configuration)
        do {
            let connection = try await transport.open(Endpoint(url: url, headers: options.headers))
            while true {
                switch try await connection.receive() {
                case .message(let message):
                    try await connection.send(message)
                case .closed(let code, let reason):
                    print("closed \(code) \(reason)")
                    return code == .normal || code == CloseCode(1005) ? 0 : 2
                }
            }
        } catch {
            print(error)
            return 1
        }
    }
}
