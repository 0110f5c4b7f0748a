import Foundation
import LiveConnection
import TestScheduling
import Testing

@testable import WebSocketTransport

/// One connection of the Python `websockets` client: its factory's options, the server's
/// terms, and what the answer and the agreement must be.
struct PythonDeflateScenario: Sendable, CustomTestStringConvertible {
    var client: String
    var server: String
    var answer: String
    var agreed: DeflateParameters
    var testDescription: String { "client \(client), server '\(server)'" }

    static let all = [
        PythonDeflateScenario(client: "{}", server: "", answer: "permessage-deflate", agreed: DeflateParameters()),
        PythonDeflateScenario(
            client: #"{"server_max_window_bits": 10, "client_max_window_bits": 9}"#, server: "",
            answer: "permessage-deflate; server_max_window_bits=10; client_max_window_bits=9",
            agreed: DeflateParameters(serverMaxWindowBits: 10, clientMaxWindowBits: 9)),
        PythonDeflateScenario(
            client: #"{"server_no_context_takeover": true, "client_no_context_takeover": true}"#, server: "",
            answer: "permessage-deflate; server_no_context_takeover; client_no_context_takeover",
            agreed: DeflateParameters(serverNoContextTakeover: true, clientNoContextTakeover: true)),
        PythonDeflateScenario(
            client: "{}", server: "server_max_window_bits=9; client_max_window_bits=11; client_no_context_takeover",
            answer:
                "permessage-deflate; client_no_context_takeover; server_max_window_bits=9; client_max_window_bits=11",
            agreed: DeflateParameters(serverMaxWindowBits: 9, clientMaxWindowBits: 11, clientNoContextTakeover: true)),
    ]
}

@Suite("permessage-deflate on the server against the Python websockets client", .waitsOnPeers, PeerServer.enabledTrait)
struct ServerDeflatePeerTests {
    /// What `deflate_client.py echo` prints (snake case in the JSON).
    struct EchoVerdict: Decodable {
        struct Agreed: Decodable {
            var serverMaxWindowBits: Int
            var clientMaxWindowBits: Int
            var serverNoContextTakeover: Bool
            var clientNoContextTakeover: Bool
        }
        var agreed: Agreed?
        var answer: String?
        var messageBytes: Int
        var wireBytes: Int

        static func decode(_ line: String) throws -> EchoVerdict {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return try decoder.decode(EchoVerdict.self, from: Data(line.utf8))
        }
    }

    @Test(
        "websockets accepts the answer, agrees the same terms, and every message echoes compressed",
        arguments: PythonDeflateScenario.all)
    func echo(scenario: PythonDeflateScenario) async throws {
        let configuration = WebSocketServer.Configuration(compression: try .spelled(scenario.server))
        try await ServerHarness.with(configuration, limit: .seconds(240)) { server in
            let line = try await PeerClient.run(
                "deflate_client.py", [ServerTests.url(server).absoluteString, scenario.client, "echo"])
            let verdict = try EchoVerdict.decode(line)
            #expect(verdict.answer == scenario.answer)
            let agreed = try #require(verdict.agreed)
            #expect(
                DeflateParameters(
                    serverMaxWindowBits: agreed.serverMaxWindowBits, clientMaxWindowBits: agreed.clientMaxWindowBits,
                    serverNoContextTakeover: agreed.serverNoContextTakeover,
                    clientNoContextTakeover: agreed.clientNoContextTakeover) == scenario.agreed)
            // Half the bytes are text that deflates 100:1, half noise of 40 symbols (about 2:3).
            #expect(verdict.wireBytes < verdict.messageBytes / 2, "\(verdict.wireBytes) of \(verdict.messageBytes)")
        }
    }

    @Test("a bomb from websockets is answered with 1009")
    func bomb() async throws {
        try await ServerHarness.with(ServerDeflateTests.deflating, limit: .seconds(240)) { server in
            let line = try await PeerClient.run(
                "deflate_client.py", [ServerTests.url(server).absoluteString, "{}", "bomb"])
            #expect(line == #"{"code": 1009}"#)
        }
    }

    @Test("with compression off the same client's messages cross uncompressed")
    func off() async throws {
        try await ServerHarness.with(.init(), limit: .seconds(240)) { server in
            let line = try await PeerClient.run(
                "deflate_client.py", [ServerTests.url(server).absoluteString, "{}", "echo"])
            let verdict = try EchoVerdict.decode(line)
            #expect(verdict.answer == nil && verdict.agreed == nil)
            #expect(verdict.wireBytes > verdict.messageBytes)
        }
    }
}

/// `livesim serve --echo` run as a user runs it, for one test: stopped when the test lets go
/// of it, and by its own `--duration` at the latest.
/// Unchecked: the `Process` is only read after `start`, and signalled.
final class LivesimServe: @unchecked Sendable {
    let port: Int
    private let process: Process

    struct NotListening: Error, CustomStringConvertible {
        var description: String
    }

    static func start(_ arguments: [String]) async throws -> LivesimServe {
        try await offPool {
            guard let executable = LivesimProcess.executable else { throw LivesimProcess.NotBuilt() }
            let process = Process()
            process.executableURL = executable
            process.arguments = ["serve", "--echo", "--duration", "120s"] + arguments
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.runGated()
            let text = output.firstLine()
            guard let line = text.split(separator: "\n").first, line.hasPrefix("listening on ws://127.0.0.1:"),
                let port = Int(line.split(separator: ":").last ?? "")
            else {
                _ = process.waitForExit(within: .zero)
                throw NotListening(description: "livesim serve \(arguments) printed: \(text)")
            }
            return LivesimServe(port: port, process: process)
        }
    }

    private init(port: Int, process: Process) {
        self.port = port
        self.process = process
    }

    deinit {
        _ = process.waitForExit(within: .zero)
    }
}

@Suite("livesim serve grants permessage-deflate", .waitsOnPeers, .timeLimit(.minutes(2)))
struct LivesimServeDeflateTests {
    @Test(
        "by default on the client's terms, on its own with --deflate-params, never with --no-deflate",
        arguments: [
            ([], DeflateParameters()),
            (
                ["--deflate-params", "server_max_window_bits=10; client_no_context_takeover"],
                DeflateParameters(serverMaxWindowBits: 10, clientNoContextTakeover: true)
            ),
            (["--no-deflate"], nil),
        ] as [([String], DeflateParameters?)])
    func serve(arguments: [String], agreed: DeflateParameters?) async throws {
        let server = try await LivesimServe.start(arguments)
        let transport = WebSocketTransport(
            configuration: .init(connectTimeout: peerConnectTimeout, compression: PerMessageDeflate()))
        let connection = try await transport.open(Endpoint(url: URL(string: "ws://127.0.0.1:\(server.port)/")!))
        #expect(connection.compression == agreed)
        let text = String(repeating: "compressible ", count: 1000)
        try await connection.send(.text(text))
        #expect(try await connection.receive() == .message(.text(text)))
        await connection.close(code: .normal, reason: "")
    }
}
