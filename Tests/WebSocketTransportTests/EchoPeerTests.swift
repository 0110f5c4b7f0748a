import Foundation
import LiveConnection
import TestScheduling
import Testing

@testable import WebSocketTransport

/// Receives until the connection ends; returns the messages and how it ended.
func drain(_ connection: any TransportConnection) async -> ([Message], Result<TransportEvent, TransportError>) {
    var messages: [Message] = []
    while true {
        do {
            switch try await connection.receive() {
            case .message(let message): messages.append(message)
            case .pong: continue  // no test pings while draining
            case .closed(let code, let reason): return (messages, .success(.closed(code: code, reason: reason)))
            }
        } catch {
            return (messages, .failure(error))
        }
    }
}

/// Runs `operation`, or reports nil if it has not finished after `limit` (the operation is cancelled).
func within<T: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async throws -> T) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask { try? await operation() }
        group.addTask {
            try? await ContinuousClock().sleep(for: limit)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

@Suite(
    "Transport against the Python websockets server", .waitsOnPeers, PeerServer.enabledTrait, .timeLimit(.minutes(2)))
struct EchoPeerTests {
    let transport = WebSocketTransport(configuration: .init(connectTimeout: peerConnectTimeout))

    @Test("echoes text and binary messages of every length class", arguments: [0, 1, 125, 126, 65535, 65536, 500_000])
    func echo(length: Int) async throws {
        let server = try await SharedPeers.echo
        let connection = try await transport.open(Endpoint(url: server.url("/")))
        let text = String(repeating: "é", count: length / 2)
        let binary = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        try await connection.send(.text(text))
        try await connection.send(.binary(binary))
        #expect(try await connection.receive() == .message(.text(text)))
        #expect(try await connection.receive() == .message(.binary(binary)))
        await connection.close(code: .normal, reason: "done")
    }

    @Test("keeps order when many tasks send at once")
    func concurrentSends() async throws {
        let server = try await SharedPeers.echo
        let connection = try await transport.open(Endpoint(url: server.url("/")))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for sender in 0..<8 {
                group.addTask {
                    for index in 0..<50 {
                        try await connection.send(.text("\(sender):\(index):" + String(repeating: "x", count: 3000)))
                    }
                }
            }
            try await group.waitForAll()
        }
        var lastIndex = [Int](repeating: -1, count: 8)
        for _ in 0..<400 {
            guard case .message(.text(let text)) = try await connection.receive() else {
                Issue.record("expected an echo")
                return
            }
            let parts = text.split(separator: ":")
            let sender = try #require(Int(parts[0]))
            let index = try #require(Int(parts[1]))
            #expect(index == lastIndex[sender] + 1, "sender \(sender) out of order")
            lastIndex[sender] = index
        }
        await connection.close(code: .normal, reason: "")
    }

    @Test("reports the server's close code and reason, as seed 000 measured: 4001")
    func closeCode() async throws {
        let server = try await SharedPeers.echo
        let connection = try await transport.open(Endpoint(url: server.url("/")))
        try await connection.send(.text("!close 4001 token expired"))
        #expect(try await connection.receive() == .closed(code: .tokenExpired, reason: "token expired"))
        await #expect(throws: TransportError.notConnected) { try await connection.send(.text("late")) }
    }

    @Test("reports a reset as ECONNRESET, as seed 000 measured")
    func reset() async throws {
        let server = try await SharedPeers.echo
        let connection = try await transport.open(Endpoint(url: server.url("/")))
        try await connection.send(.text("!reset"))
        let (_, ending) = await drain(connection)
        #expect(ending == .failure(.reset(errno: "ECONNRESET")))
    }

    @Test("reports each ping's pong from receive, and the connection still carries data after them")
    func pingPong() async throws {
        let server = try await SharedPeers.echo
        let connection = try await transport.open(Endpoint(url: server.url("/")))
        var pongs = 0
        for number: UInt64 in 1...5 {
            try await connection.pingRoundTrip(number)
            pongs += 1
        }
        try await connection.send(.text("stop"))
        #expect(pongs == 5)
        #expect(try await connection.receive() == .message(.text("stop")), "data still flows after the pings")
        await connection.close(code: .normal, reason: "")
    }

    @Test("reports the pong of every one of many pings written concurrently, each once")
    func concurrentPings() async throws {
        let server = try await SharedPeers.echo
        let connection = try await transport.open(Endpoint(url: server.url("/")))
        // A deadline of its own: a ping never sent (a lost wake-up in the write lock) once
        // hung this test for the suite's whole time limit.
        let outcome = await within(.seconds(30)) { () async throws -> ([UInt64], TransportEvent) in
            try await withThrowingTaskGroup(of: Void.self) { pings in
                for number: UInt64 in 1...20 { pings.addTask { try await connection.ping(number) } }
                try await pings.waitForAll()
            }
            try await connection.send(.text("stop"))
            var pongs: [UInt64] = []
            while true {
                let event = try await connection.receive()
                guard case .pong(let number) = event else { return (pongs, event) }
                pongs.append(number)
            }
        }
        let (pongs, echoed) = try #require(outcome, "20 pings and an echo within 30 s")
        #expect(pongs.sorted() == Array(1...20), "every ping's pong, each reported once: \(pongs)")
        #expect(echoed == .message(.text("stop")))
        await connection.close(code: .normal, reason: "")
    }

    @Test("a reset while a ping waits for its pong ends receive with the reset; a later ping fails")
    func pingFailsOnReset() async throws {
        let server = try await PeerServer.start("echo_server.py")
        defer { server.stop() }
        let connection = try await transport.open(Endpoint(url: server.url("/")))
        server.signal(SIGSTOP)
        try await connection.ping(1)  // written: the frozen server will never answer it
        // The server is frozen: kill it; the kernel resets its connections.
        try? await ContinuousClock().sleep(for: .milliseconds(100))
        server.stop()
        let ending: String
        do throws(TransportError) {
            ending = "\(try await connection.receive())"
        } catch {
            ending = "failed \(error)"
        }
        #expect(ending.hasPrefix("failed ") && ending != "failed cancelled", "\(ending)")
        var pingedAfter = true
        do throws(TransportError) { try await connection.ping(2) } catch { pingedAfter = false }
        #expect(!pingedAfter, "a ping was written on a connection that had ended")
    }

    @Test("answers the server's ping with a pong carrying the same payload")
    func autoPong() async throws {
        let server = try await SharedPeers.echo
        let connection = try await transport.open(Endpoint(url: server.url("/")))
        try await connection.send(.text("!ping are-you-there"))
        #expect(try await connection.receive() == .message(.text("pong are-you-there")))
        await connection.close(code: .normal, reason: "")
    }

    @Test("completes the close handshake it starts")
    func clientClose() async throws {
        let server = try await SharedPeers.echo
        let connection = try await transport.open(Endpoint(url: server.url("/")))
        await connection.close(code: .goingAway, reason: "bye")
        await #expect(throws: TransportError.notConnected) { try await connection.send(.text("late")) }
        #expect(try await connection.receive() == .closed(code: .goingAway, reason: "bye"))
    }

    @Test("sends extra headers and negotiates an offered subprotocol")
    func headersAndSubprotocol() async throws {
        let server = try await PeerServer.start("echo_server.py", ["--subprotocol", "v2.live"])
        defer { server.stop() }
        let endpoint = Endpoint(
            url: server.url("/"), headers: [.init("Authorization", "Bearer abc")], subprotocols: ["v1.live", "v2.live"])
        let connection = try await transport.open(endpoint)
        #expect(connection.subprotocol == "v2.live")
        try await connection.send(.text("!headers"))
        guard case .message(.text(let json)) = try await connection.receive() else {
            Issue.record("expected the headers")
            return
        }
        let decoded = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let headers = try #require(decoded?["headers"] as? [[String]])
        #expect(headers.contains(["Authorization", "Bearer abc"]))
        #expect(decoded?["subprotocol"] as? String == "v2.live")
        await connection.close(code: .normal, reason: "")
    }

    @Test("reports the HTTP status of a refused upgrade", arguments: [401, 403, 503])
    func rejected(status: Int) async throws {
        let server = try await SharedPeers.echo
        await #expect(throws: TransportError.handshakeRejected(status: status)) {
            try await transport.open(Endpoint(url: server.url("/reject/\(status)")))
        }
    }

    @Test("reports a refused TCP connection")
    func refused() async throws {
        // Bind then close a listener to get a port nobody is listening on.
        let server = try await PeerServer.start("echo_server.py")
        let url = server.url("/")
        server.stop()
        await #expect(throws: TransportError.refused) { try await transport.open(Endpoint(url: url)) }
    }

    @Test("times out a connection attempt the server never answers")
    func connectTimeout() async throws {
        // A frozen server accepts TCP (the kernel does) but never answers the upgrade.
        let server = try await PeerServer.start("echo_server.py")
        defer { server.stop() }
        server.signal(SIGSTOP)
        let quick = WebSocketTransport(configuration: .init(connectTimeout: .milliseconds(300)))
        await #expect(throws: TransportError.reset(errno: "ETIMEDOUT")) {
            try await quick.open(Endpoint(url: server.url("/")))
        }
    }

    @Test("a frozen server (SIGSTOP) yields nothing until the ping deadline; thawed, it answers again")
    func frozenServer() async throws {
        let server = try await PeerServer.start("echo_server.py")
        defer { server.stop() }
        let connection = try await transport.open(Endpoint(url: server.url("/")))
        server.signal(SIGSTOP)
        // Seed 000: a silent peer produces no event at all; only the ping deadline tells.
        let received = await within(.milliseconds(500)) { try await connection.receive() }
        #expect(received == nil)
        try await connection.ping(1)  // written all the same
        let pong = await within(.milliseconds(500)) { try await connection.receive() }
        #expect(pong == nil, "a frozen server cannot answer a ping")
        server.signal(SIGCONT)
        let answered: Bool? = await within(.seconds(60)) {
            try await connection.pingRoundTrip(2)
            return true
        }
        #expect(answered == true)
        await connection.close(code: .normal, reason: "")
    }

    @Test("honours cancellation of a receive that waits on a silent server")
    func cancelledReceive() async throws {
        let server = try await SharedPeers.echo
        let connection = try await transport.open(Endpoint(url: server.url("/")))
        let outcome = await withTaskGroup(of: String.self) { group in
            group.addTask {
                do {
                    _ = try await connection.receive()
                    return "returned"
                } catch {
                    return "\(error)"
                }
            }
            group.cancelAll()
            return await group.next() ?? ""
        }
        #expect(outcome == "cancelled")
        // The connection survives an abandoned receive.
        try await connection.send(.text("still here"))
        #expect(try await connection.receive() == .message(.text("still here")))
        await connection.close(code: .normal, reason: "")
    }
}
