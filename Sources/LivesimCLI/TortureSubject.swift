import Foundation
import LiveTestServer
import WebSocketTransport
import WireHistory

/// What `livesim torture` puts the command's client in front of: the live test server, or
/// (`--upstream`) the fault proxy in front of the user's own server. Either applies the seed's
/// fault schedule and feeds the one history recorder.
enum TortureSubject: Sendable {
    case live(LiveTestServer)
    case proxy(WebSocketProxy)

    /// Binds on loopback with the history as its observer, and starts the history (its header
    /// names the URL). For a proxy, the upstream is contacted first: one that cannot be reached
    /// is an error here, before the command starts.
    static func start(
        upstream: URL?, port: UInt16, path: String, faults: RealTimeFaults
    ) async throws -> (TortureSubject, HistoryRecording) {
        guard let upstream else {
            var configuration = WebSocketServer.Configuration(host: "127.0.0.1", port: port)
            configuration.compression = PerMessageDeflate()
            let history = try HistoryRecording(
                path: path, mode: "torture", configuration: configuration, faults: faults.schedule)
            let live = try LiveTestServer(configuration: configuration, observer: history)
            try history.started(url: "ws://127.0.0.1:\(live.port)/live")
            return (.live(live), history)
        }
        let configuration = WebSocketProxy.Configuration(upstream: upstream, host: "127.0.0.1", port: port)
        let history = try HistoryRecording(path: path, mode: "torture", proxy: configuration, faults: faults.schedule)
        let proxy = try WebSocketProxy(configuration: configuration, observer: history)
        do {
            try await proxy.checkUpstream()
        } catch {
            _ = try? history.finish()
            throw CommandFailure("cannot reach the upstream \(upstream.absoluteString): \(error)")
        }
        try history.started(url: "ws://127.0.0.1:\(proxy.port)")
        return (.proxy(proxy), history)
    }

    /// The URL the command's client is given: the live server's `/live`, or the proxy with the
    /// upstream's path (the proxy sends every client there); named `client` either way.
    func clientURL(client: String) -> String {
        switch self {
        case .live(let live): return "ws://127.0.0.1:\(live.port)/live?client=\(client)"
        case .proxy(let proxy):
            let path = proxy.configuration.upstream.path
            return "ws://127.0.0.1:\(proxy.port)\(path.isEmpty ? "/" : path)?client=\(client)"
        }
    }

    /// Serves until cancelled.
    func run() async {
        switch self {
        case .live(let live): await live.run()
        case .proxy(let proxy): await proxy.run()
        }
    }

    /// Applies the schedule from now, announcing each action.
    func run(_ faults: RealTimeFaults, announce: @escaping @Sendable (String) -> Void) async {
        switch self {
        case .live(let live): await faults.run(on: live, announce: announce)
        case .proxy(let proxy): await faults.run(on: proxy, announce: announce)
        }
    }
}
