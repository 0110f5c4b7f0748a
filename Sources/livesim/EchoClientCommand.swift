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
            while true {
                let event: TransportEvent
                do {
                    event = try await within(timeout) { try await connection.receive() }
                } catch is TimedOut {
                    await connection.close(code: .goingAway, reason: "no frame within \(formatDuration(timeout))")
                    print("timed out: no frame from the server within \(formatDuration(timeout))")
                    return 1
                }
                switch event {
                case .message(let message):
                    do {
                        try await within(timeout) { try await connection.send(message) }
                    } catch is TimedOut {
                        await connection.close(code: .goingAway, reason: "send timed out")
                        print("timed out: the server did not take a message within \(formatDuration(timeout))")
                        return 1
                    }
                case .closed(let code, let reason):
                    print("closed \(code) \(clipped(reason, to: 200))")
                    return code == .normal || code == CloseCode(1005) ? 0 : 2
                }
            }
        } catch {
            print(clipped(describe(error), to: 400))
            return 1
        }
    }
}

/// The deadline passed before the work finished.
struct TimedOut: Error {}

/// Runs `work`, cancelling it after `limit` (the transport's waits honour cancellation).
func within<T: Sendable>(_ limit: Duration, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await work() }
        group.addTask {
            try await ContinuousClock().sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        // The first to finish decides: the work's value (or error), or nil for the deadline.
        guard let value = try await group.next() ?? nil else { throw TimedOut() }
        return value
    }
}
