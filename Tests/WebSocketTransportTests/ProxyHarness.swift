import Foundation
import LiveConnection
import Testing

import typealias LiveConnection.Mutex

@testable import LiveTestServer
@testable import WebSocketTransport

/// Every event a proxy reported, for a test to read afterwards.
final class ProxyEventLog: ProxyObserver {
    private let events = Mutex<[ProxyEvent]>([])

    func observe(_ event: ProxyEvent) { events.withLock { $0.append(event) } }

    /// The kinds reported for one client's connections, in order.
    func kinds(of client: String) -> [ProxyEvent.Kind] {
        events.withLock { $0.filter { $0.client == client }.map(\.kind) }
    }
}

/// A ``WebSocketProxy`` in front of an upstream, served while a test body runs.
enum ProxyHarness {
    /// Starts a proxy to `upstream`, runs `body` with it (60 s at most), then stops it.
    static func with(
        upstream: URL, log: ProxyEventLog? = nil,
        configure: (inout WebSocketProxy.Configuration) -> Void = { _ in },
        _ body: @escaping @Sendable (WebSocketProxy) async throws -> Void
    ) async throws {
        var configuration = WebSocketProxy.Configuration(upstream: upstream)
        configure(&configuration)
        let proxy = try WebSocketProxy(configuration: configuration, observer: log)
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                await proxy.run()
                return false
            }
            group.addTask {
                try await ContinuousClock().sleep(for: .seconds(60))
                return true
            }
            group.addTask {
                try await body(proxy)
                return false
            }
            let timedOut = try await group.next() ?? false
            group.cancelAll()
            if timedOut { throw ServerHarness.TimedOut() }
        }
    }

    /// Our own echo server as the upstream, and a proxy in front of it.
    static func withEchoUpstream(
        log: ProxyEventLog? = nil, _ body: @escaping @Sendable (WebSocketServer, WebSocketProxy) async throws -> Void
    ) async throws {
        try await ServerHarness.with { server in
            try await with(upstream: URL(string: "ws://127.0.0.1:\(server.port)/")!, log: log) { proxy in
                try await body(server, proxy)
            }
        }
    }

    static let transport = WebSocketTransport(configuration: .init(connectTimeout: peerConnectTimeout))

    /// A client of the proxy that names itself `client`.
    static func open(_ proxy: WebSocketProxy, client: String, path: String = "/") async throws -> WebSocketConnection {
        try await transport.open(Endpoint(url: URL(string: "ws://127.0.0.1:\(proxy.port)\(path)?client=\(client)")!))
    }

    /// Sends `text` and expects it back.
    static func echoes(_ connection: WebSocketConnection, _ text: String) async throws -> Bool {
        try await connection.send(.text(text))
        return try await connection.receive() == .message(.text(text))
    }

    /// Waits (up to 60 s) until `condition` holds.
    static func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw ServerHarness.TimedOut() }
            try await ContinuousClock().sleep(for: .milliseconds(10))
        }
    }

    /// Waits (up to 60 s) until the proxy lists `count` open connections: a fault aimed at a
    /// client finds only connections the proxy has opened.
    static func waitForOpen(_ proxy: WebSocketProxy, count: Int) async throws {
        try await waitUntil { proxy.openConnections.count >= count }
    }
}
