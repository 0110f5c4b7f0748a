import Foundation
import LiveConnection
import WebSocketTransport

extension Command {
    /// `livesim connect URL`: the manager over the real transport, printing what it does.
    static let connect = Command(
        name: "connect",
        summary: "connect to a live server with the reconnecting manager and print its events",
        usage: """
            usage: livesim connect URL [--topic T]... [--header K:V]... [--ping-interval S] [--ping-timeout S]
                                       [--duration S] [--ca FILE] [--max-message-size N]

            Runs a ConnectionManager over the real WebSocket transport and prints every phase
            change and message, one line each, with the seconds since start. Topics are
            subscribed on every connection (JSON protocol: {"type":"subscribe","topic":T}).
            Runs until interrupted, or for --duration seconds, or until the manager stops.

              --topic T                subscribe to T (repeatable)
              --ping-interval S        heartbeat interval P in seconds (default 25)
              --ping-timeout S         heartbeat timeout T in seconds (default 10)
              --duration S             exit after S seconds
            \(TransportOptions.usage)
            """,
        run: { arguments in
            let url = try parseWebSocketURL(try arguments.positional("URL"))
            let topics = try arguments.options("--topic")
            var configuration = ConnectionConfiguration()
            if let seconds = try arguments.option("--ping-interval", parse: positiveSeconds) {
                configuration.heartbeatInterval = seconds
            }
            if let seconds = try arguments.option("--ping-timeout", parse: positiveSeconds) {
                configuration.heartbeatTimeout = seconds
            }
            let duration = try arguments.option("--duration", parse: positiveSeconds)
            let options = try TransportOptions(&arguments)
            try arguments.finish()
            let endpoint = Endpoint(url: url, headers: options.headers)
            let manager = ConnectionManager(
                configuration: configuration, transport: WebSocketTransport(configuration: options.configuration))
            return await watch(manager, endpoint: endpoint, topics: topics, duration: duration)
        })

    private static func positiveSeconds(_ text: String) -> Duration? {
        guard let value = Double(text), value > 0, value.isFinite else { return nil }
        return .nanoseconds(Int64(value * 1e9))
    }

    private static func watch(_ manager: ConnectionManager, endpoint: Endpoint, topics: [String], duration: Duration?)
        async -> Int32
    {
        let clock = ContinuousClock()
        let start = clock.now
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await manager.run() }
            let events = await manager.events()
            for topic in topics { await manager.subscribe(topic) }
            await manager.connect(to: endpoint)
            if let duration {
                group.addTask { try? await clock.sleep(for: duration) }
            }
            group.addTask {
                for await event in events {
                    let seconds = Double(start.duration(to: clock.now).nanoseconds) / 1e9
                    // Unbuffered, so a pipe sees each event as it happens.
                    FileHandle.standardOutput.write(
                        Data((String(format: "%8.3f ", seconds) + event.description + "\n").utf8))
                    if case .phase(.stopped) = event { return }
                }
            }
            // The first of: the duration passed, the manager stopped. Then end the rest.
            _ = await group.next()
            group.cancelAll()
        }
        return 0
    }
}
