import Foundation
import TestScheduling
import Testing

/// `livesim connect --check` against `livesim serve`, both run as a user runs them, the
/// server's faults driven through its admin endpoint: the simulator's invariants judging a
/// real manager on the real clock. A correct manager passes through the faults; a planted
/// bug (`--variant`, the simulator's broken logic) fails with explore's words and exit 3.
@Suite("livesim connect --check against livesim serve", .waitsOnPeers, .timeLimit(.minutes(3)))
struct ConnectCheckTests {
    /// Fast heartbeats so a silent server is found (or missed) within a second or two.
    static let heartbeat = ["--ping-interval", "300ms", "--ping-timeout", "300ms"]

    @Test("a correct manager passes the check through a reset, a freeze and a thaw")
    func correctManagerPasses() throws {
        let server = try LiveServeProcess()
        let connect = try LivesimProcess(
            ["connect", server.url, "--topic", "loans", "--check", "--tolerance", "2s", "--duration", "12s"]
                + Self.heartbeat)
        #expect(connect.waitForOutput(containing: "phase open", seconds: 20), "\(connect.standardOutputSoFar)")
        #expect(try server.waitForSubscription("loans", connection: 1))
        #expect(try server.admin("/broadcast?topic=loans&text=one").contains("seq"))
        #expect(try server.admin("/reset") == "ok")
        #expect(
            connect.waitForOutput(containing: "phase open attempt=2", seconds: 20), "\(connect.standardOutputSoFar)")
        #expect(try server.admin("/freeze") == "ok")
        #expect(connect.waitForOutput(containing: "heartbeat missed", seconds: 20), "\(connect.standardOutputSoFar)")
        #expect(try server.admin("/thaw") == "ok")
        let output = connect.finish(within: 40)
        #expect(!output.timedOut)
        #expect(output.status == 0, "\(output.standardOutput)\n\(output.standardError)")
        #expect(output.standardOutput.contains("check: not judged eventually-open"), "\(output.standardOutput)")
        #expect(output.standardOutput.contains("no violation"), "\(output.standardOutput)")
        #expect(!output.standardOutput.contains("violation:"), "\(output.standardOutput)")
    }

    @Test("a manager without a pong deadline fails dead-peer-detected when the server freezes, and exits 3")
    func missingPongDeadlineFails() throws {
        let server = try LiveServeProcess()
        let connect = try LivesimProcess(
            ["connect", server.url, "--check", "--variant", "no-pong-deadline", "--duration", "60s"] + Self.heartbeat)
        #expect(connect.waitForOutput(containing: "phase open", seconds: 20), "\(connect.standardOutputSoFar)")
        #expect(try server.admin("/freeze") == "ok")
        let output = connect.finish(within: 40)
        #expect(!output.timedOut, "\(output.standardOutput)")
        #expect(output.status == 3, "\(output.standardOutput)\n\(output.standardError)")
        #expect(
            output.standardOutput.contains("dead-peer-detected: g1's socket is dead since"), "\(output.standardOutput)")
        #expect(output.standardOutput.contains("stopped (an invariant was violated)"), "\(output.standardOutput)")
    }

    @Test(
        "planted bugs fail the check with the invariant explore names",
        arguments: [
            // The first connection opens without its subscriptions: no fault needed.
            ("skips-resubscribe", [], "resubscribe-before-open: g1 reports open without subscribing to [\"loans\"]"),
            // The server closes; the broken manager never lets go of the old socket.
            ("leaks-sockets", ["/close?code=1001&reason=bye"], "single-live-transport: socket 1 of g1 still held"),
            // The server drops the connection and refuses new ones; the broken manager retries at
            // once, over and over.
            ("retries-immediately", ["/refuse?on=true", "/reset"], "no-hot-loop: "),
        ] as [(String, [String], String)])
    func plantedBugsFail(variant: String, faults: [String], expected: String) throws {
        let server = try LiveServeProcess()
        let connect = try LivesimProcess([
            "connect", server.url, "--topic", "loans", "--check", "--variant", variant, "--duration", "60s",
            "--max-attempts", "1000000",
        ])
        #expect(connect.waitForOutput(containing: "phase open", seconds: 20), "\(connect.standardOutputSoFar)")
        if !faults.isEmpty { #expect(try server.waitForSubscription("loans", connection: 1)) }
        for fault in faults { #expect(try server.admin(fault) == "ok") }
        let output = connect.finish(within: 60)
        #expect(!output.timedOut, "\(output.standardOutput)")
        #expect(output.status == 3, "\(output.standardOutput)\n\(output.standardError)")
        #expect(output.standardOutput.contains("violation: "), "\(output.standardOutput)")
        #expect(output.standardOutput.contains(expected), "\(output.standardOutput)")
    }

    @Test(
        "--check's options are range-checked: a clear error and exit 64",
        arguments: [
            (["--tolerance", "1s"], "--tolerance needs --check"),
            (["--check", "--tolerance", "61s"], "--tolerance"),
            (["--check", "--tolerance", "-1s"], "--tolerance"),
            (["--check", "--variant", "no-such-bug"], "--variant"),
        ])
    func badOptions(arguments: [String], mentions: String) throws {
        let output = try LivesimProcess.run(["connect", "ws://127.0.0.1:1/"] + arguments, within: 10)
        #expect(output.status == 64, "\(output.standardError)")
        #expect(output.standardError.contains(mentions), "\(output.standardError)")
    }
}

/// `livesim serve` on loopback ports the system picks, for one test: its WebSocket URL and
/// its admin endpoint. Stopped (SIGTERM) when the test lets go of it.
final class LiveServeProcess {
    let process: LivesimProcess
    let url: String
    let adminPort: UInt16

    struct NotListening: Error, CustomStringConvertible {
        var output: String
        var description: String { "livesim serve printed no addresses: \(output)" }
    }

    init() throws {
        process = try LivesimProcess(["serve", "--duration", "300s"])
        guard process.waitForOutput(containing: "admin on", seconds: 20) else {
            throw NotListening(output: process.standardOutputSoFar)
        }
        let lines = process.standardOutputSoFar.split(separator: "\n")
        guard let listening = lines.first(where: { $0.hasPrefix("listening on ") }),
            let admin = lines.first(where: { $0.hasPrefix("admin on ") }),
            let port = admin.split(separator: ":").last.flatMap({ UInt16($0) })
        else { throw NotListening(output: process.standardOutputSoFar) }
        url = listening.dropFirst("listening on ".count) + "/live"
        adminPort = port
    }

    deinit {
        process.process.terminate()
        _ = process.finish(within: 10)
    }

    struct AdminFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// Waits (up to `seconds`) until the server has taken connection `connection`'s subscribe
    /// to `topic`: the client's "open" says the frame was written, not that the server has
    /// the connection in its list yet, and a fault applied before that would miss it.
    func waitForSubscription(_ topic: String, connection: Int, seconds: Double = 20) throws -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if try admin("/subscriptions", method: "GET").contains("\"\(connection):\(topic)\"") { return true }
            usleep(20_000)
        }
        return false
    }

    /// Sends `method path` (with its query) to the admin endpoint and returns the body of the
    /// answer. Plain POSIX sockets with a 10 s deadline on every read and write.
    func admin(_ path: String, method: String = "POST") throws -> String {
        try Self.admin(path, method: method, port: adminPort)
    }

    /// The same request to any admin endpoint on loopback (`livesim proxy`'s too).
    static func admin(_ path: String, method: String = "POST", port adminPort: UInt16) throws -> String {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw AdminFailure(description: "socket: errno \(errno)") }
        defer { close(socket) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        for option in [SO_RCVTIMEO, SO_SNDTIMEO] {
            setsockopt(socket, SOL_SOCKET, option, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = adminPort.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw AdminFailure(description: "connect to the admin port: errno \(errno)") }
        let request = Array(
            "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(adminPort)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                .utf8)
        guard send(socket, request, request.count, 0) == request.count else {
            throw AdminFailure(description: "send to the admin port: errno \(errno)")
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count < 0 { throw AdminFailure(description: "read from the admin port: errno \(errno)") }
            if count == 0 { break }
            answer += buffer[..<count]
        }
        let text = String(decoding: answer, as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 200"), let body = text.range(of: "\r\n\r\n") else {
            throw AdminFailure(description: "\(method) \(path): \(text)")
        }
        guard text[..<body.lowerBound].lowercased().contains("transfer-encoding: chunked") else {
            return text[body.upperBound...].trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // GET /subscriptions is made while written: size in hex, CRLF, bytes, CRLF; 0 ends it.
        var rest = Substring(text[body.upperBound...])
        var decoded = ""
        while let line = rest.range(of: "\r\n"), let size = Int(rest[..<line.lowerBound], radix: 16), size > 0 {
            let start = rest.utf8.index(line.upperBound, offsetBy: 0)
            guard let end = rest.utf8.index(start, offsetBy: size, limitedBy: rest.utf8.endIndex) else { break }
            decoded += String(rest[start..<end])
            rest = rest[end...].dropFirst(2)
        }
        return decoded.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
