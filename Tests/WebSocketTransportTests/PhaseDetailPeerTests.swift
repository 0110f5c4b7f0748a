import Foundation
import LiveConnection
import TestScheduling
import Testing

@testable import WebSocketTransport

/// What the app learns about a connection from a real server (issue 12 item 1): the
/// server's close code and reason, typed, in the phases; the subprotocol it chose and its
/// response headers once open. Against the Python `websockets` echo server.
@Suite("Close frames and the handshake against a real server", .waitsOnPeers, PeerServer.enabledTrait)
struct PhaseDetailPeerTests {
    @Test("the handshake shows the chosen subprotocol and the server's response headers once open")
    func handshakeOnceOpen() async throws {
        let server = try await PeerServer.start(
            "echo_server.py", ["--subprotocol", "v2.live", "--header", "X-Session-ID: 7f3a"])
        defer { server.stop() }
        let seen = Locked<[Handshake?]>([])
        try await RealManager.withManager(server: server, quietHeartbeat: true) { manager, log in
            let before = await manager.handshake
            await manager.connect(to: Endpoint(url: server.url("/"), subprotocols: ["v1.live", "v2.live"]))
            await log.wait(for: RealManager.isOpen)
            let open = await manager.handshake
            seen.set([before, open])
        }
        #expect(seen.value.count == 2)
        #expect(seen.value.first == .some(nil), "no handshake before the first open")
        let handshake = try #require(seen.value.last ?? nil)
        #expect(handshake.subprotocol == "v2.live")
        #expect(handshake.values(of: "X-Session-ID") == ["7f3a"], "\(handshake.headers)")
        #expect(handshake.values(of: "upgrade") == ["websocket"])
    }

    @Test("the server's close code and reason reach the app typed: waiting after 1011, stopped after 4003")
    func closeFramesTyped() async throws {
        let server = try await PeerServer.start("echo_server.py")
        defer { server.stop() }
        let log = try await RealManager.withManager(server: server, quietHeartbeat: true) { manager, log in
            await manager.connect(to: server.url("/"))
            await log.wait(for: RealManager.isOpen)
            try await manager.send(text: "!close 1011 restarting for an upgrade")
            await log.wait(for: RealManager.isWaiting)
            let mark = await log.count
            await log.wait(from: mark, for: RealManager.isOpen)
            try await manager.send(text: "!close 4003 account suspended")
            await log.wait { if case .phase(.stopped) = $0 { true } else { false } }
        }
        let phases = await log.phases
        // The wait the 1011 caused, not the first: on a loaded machine an attempt before the
        // first open can time out (CI saw "error ETIMEDOUT" there), and that wait has no frame.
        let waitAfter1011 = phases.lazy.compactMap {
            if case .waiting(let reason, _, let close) = $0, reason == "closed 1011" { close } else { nil }
        }.first
        #expect(waitAfter1011 == CloseFrame(code: .internalError, reason: "restarting for an upgrade"), "\(phases)")
        #expect(
            phases.last
                == .stopped(reason: "closed 4003", close: CloseFrame(code: .forbidden, reason: "account suspended")),
            "\(phases)")
    }
}
