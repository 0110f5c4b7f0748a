import Foundation
import LiveConnection
import TestScheduling
import Testing
import WebSocketTransport
import WireHistory

@testable import LiveTestServer

/// The live server recording its wire: who a client is, and what a history holds of one
/// connection's life — its attempt, open, frames, the server's close and the client's answer.
@Suite("Wire history recorder", .waitsOnPeers, .timeLimit(.minutes(2)))
struct WireHistoryRecorderTests {
    @Test("a client is its query parameter, else its X-Livesim-Client header, else its address")
    func identity() throws {
        func request(_ target: String, header: String? = nil) throws -> UpgradeRequest {
            let head =
                "GET \(target) HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                + (header.map { "X-Livesim-Client: \($0)\r\n" } ?? "") + "\r\n"
            return try #require(try UpgradeRequest.parse(Array(head.utf8))).0
        }
        #expect(WireHistoryRecorder.client(of: try request("/live?topic=a&client=phone%201"), peer: "::1") == "phone 1")
        #expect(WireHistoryRecorder.client(of: try request("/live", header: "tablet"), peer: "::1") == "tablet")
        #expect(WireHistoryRecorder.client(of: try request("/live?client=q", header: "h"), peer: "::1") == "q")
        #expect(WireHistoryRecorder.client(of: try request("/live"), peer: "10.0.0.7") == "10.0.0.7")
        #expect(WireHistoryRecorder.client(of: nil, peer: "") == "unknown")
    }

    @Test(
        "one connection's life, as the history records it: attempt, open, message, the server's 4003 and the answer"
    )
    func oneConnection() async throws {
        let path = FileManager.default.temporaryDirectory.appending(path: "recorder-\(UUID().uuidString).jsonl").path
        let header = WireHistoryHeader(server: ["mode": "test"], faults: nil, origin: "now")
        let writer = try WireHistoryWriter(path: path, header: header)
        let recorder = WireHistoryRecorder(writer: writer)
        let live = try LiveTestServer(configuration: .init(), observer: recorder)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await live.run() }
            let endpoint = Endpoint(
                url: URL(string: "ws://127.0.0.1:\(live.port)/live")!, headers: [.init("X-Livesim-Client", "tester")])
            let connection = try await WebSocketTransport(configuration: .init(connectTimeout: .seconds(20)))
                .connect(to: endpoint)
            try await connection.send(.text(#"{"type":"subscribe","topic":"feed"}"#))
            // The server has read the subscription before it closes.
            let read = ContinuousClock.now + .seconds(20)
            while live.subscriptionLog.isEmpty, ContinuousClock.now < read {
                try await ContinuousClock().sleep(for: .milliseconds(10))
            }
            live.server.closeAll(code: .forbidden, reason: "go away")
            // The close frame arrives: the transport answers it.
            var event = try await connection.receive()
            while case .message = event { event = try await connection.receive() }
            #expect(event == .closed(code: .forbidden, reason: "go away"))
            // The server finishes the connection once the client answered.
            let deadline = ContinuousClock.now + .seconds(20)
            while live.server.connections.count > 0, ContinuousClock.now < deadline {
                try await ContinuousClock().sleep(for: .milliseconds(20))
            }
            recorder.end()
            group.cancelAll()
        }
        try writer.close()
        let (_, records) = try WireHistoryReader.records(at: path)
        let names = records.map(\.event.name)
        let life = ["attempt", "open", "client-message", "fault", "server-close", "client-close", "server-done", "end"]
        #expect(Array(names.prefix(life.count)) == life, "\(names)")
        #expect(records.first?.event == .attempt(connection: 1, client: "tester", path: "/live"))
        #expect(records.contains { $0.event == .serverClose(connection: 1, code: 4003, reason: "go away") })
        #expect(
            records.contains {
                $0.event == .clientClose(connection: 1, code: 4003, reason: "")
                    || $0.event == .clientClose(connection: 1, code: 4003, reason: "go away")
            })
        #expect(zip(records, records.dropFirst()).allSatisfy { $0.at <= $1.at }, "times go backwards")
    }

    @Test(
        "through the proxy the same life is recorded from the client's link, with the fault aimed at the client by name"
    )
    func oneConnectionThroughProxy() async throws {
        let path = FileManager.default.temporaryDirectory.appending(path: "proxied-\(UUID().uuidString).jsonl").path
        let writer = try WireHistoryWriter(
            path: path, header: WireHistoryHeader(server: ["mode": "proxy"], faults: nil, origin: "now"))
        let recorder = WireHistoryRecorder(writer: writer)
        let live = try LiveTestServer(configuration: .init())
        let proxy = try WebSocketProxy(
            configuration: .init(upstream: URL(string: "ws://127.0.0.1:\(live.port)/live")!), observer: recorder)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await live.run() }
            group.addTask { await proxy.run() }
            // A standing fault for a client that is not connected is recorded too, with its name.
            proxy.failHandshakes(.client("other"), status: 503)
            let endpoint = Endpoint(url: URL(string: "ws://127.0.0.1:\(proxy.port)/?client=tester")!)
            let connection = try await WebSocketTransport(configuration: .init(connectTimeout: .seconds(20)))
                .connect(to: endpoint)
            try await connection.send(.text(#"{"type": "subscribe", "topic": "feed"}"#))
            let read = ContinuousClock.now + .seconds(20)
            while live.subscriptionLog.isEmpty, ContinuousClock.now < read {
                try await ContinuousClock().sleep(for: .milliseconds(10))
            }
            proxy.close(.client("tester"), code: .forbidden, reason: "go away")
            var event = try await connection.receive()
            while case .message = event { event = try await connection.receive() }
            #expect(event == .closed(code: .forbidden, reason: "go away"))
            let deadline = ContinuousClock.now + .seconds(20)
            while !((try? String(contentsOfFile: path, encoding: .utf8))?.contains("server-done") ?? false),
                ContinuousClock.now < deadline
            {
                try await ContinuousClock().sleep(for: .milliseconds(20))
            }
            recorder.end()
            group.cancelAll()
        }
        try writer.close()
        let (_, records) = try WireHistoryReader.records(at: path)
        let events = records.map(\.event)
        #expect(events.first == .fault(.handshakeStatus(503), client: "other"), "\(events)")
        let life = ["attempt", "open", "client-message", "fault", "server-close", "client-close", "server-done", "end"]
        #expect(Array(events.dropFirst().map(\.name).prefix(life.count)) == life, "\(events)")
        #expect(events.contains(.attempt(connection: 1, client: "tester", path: "/?client=tester")))
        // The words of what the client sent, as the server's history keeps them.
        #expect(
            events.contains(
                .clientMessage(connection: 1, binary: false, size: 38, text: #"{"type": "subscribe", "topic": "feed"}"#)
            ))
        #expect(events.contains(.fault(.closeAll(code: 4003, reason: "go away"), client: "tester")))
        #expect(events.contains(.serverClose(connection: 1, code: 4003, reason: "go away")))
        #expect(zip(records, records.dropFirst()).allSatisfy { $0.at <= $1.at }, "times go backwards")
    }

    @Test("a client that names itself nowhere is its address without the port, as the server records it")
    func proxyAddressIdentity() {
        #expect(WireHistoryRecorder.host(of: "127.0.0.1:53122") == "127.0.0.1")
        #expect(WireHistoryRecorder.host(of: "[::1]:53122") == "::1")
    }
}
