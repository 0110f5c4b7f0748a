import Foundation
import Testing

/// A Python test peer (`Peers/*.py`) running on loopback with a free port.
///
/// The server prints `PORT n` once listening. Its stdin is a pipe from us: when this
/// process ends, for whatever reason, the pipe closes and the server exits, so no peer
/// outlives a test run.
/// Unchecked: `Process` and `Pipe` are not `Sendable`; after `start` they are only read, or signalled by pid.
final class PeerServer: @unchecked Sendable {
    let port: Int
    let processIdentifier: Int32
    private let process: Process
    private let stdinPipe: Pipe

    /// True when python3 can import websockets and wsproto.
    static let pythonPeersAvailable: Bool = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import websockets, wsproto"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    /// In CI (env `CI` set) the peer tests run and fail if Python packages are missing;
    /// elsewhere they are skipped with this trait's comment.
    static let enabledTrait = Testing.ConditionTrait.enabled(
        if: pythonPeersAvailable || ProcessInfo.processInfo.environment["CI"] != nil,
        "needs python3 with the PyPI packages websockets and wsproto: pip install websockets wsproto")

    static let peersDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers")

    private init(port: Int, process: Process, stdinPipe: Pipe) {
        self.port = port
        self.process = process
        self.processIdentifier = process.processIdentifier
        self.stdinPipe = stdinPipe
    }

    /// Starts `Peers/<script>` and waits for its port.
    static func start(_ script: String, _ arguments: [String] = []) throws -> PeerServer {
        try #require(pythonPeersAvailable, "python3 with websockets and wsproto is required (pip install websockets wsproto)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", peersDirectory.appendingPathComponent(script).path] + arguments
        process.currentDirectoryURL = peersDirectory
        let output = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        // Blocks this test briefly (the server prints within a fraction of a second).
        var text = ""
        while !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let line = text.split(separator: "\n").first, line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) else {
            process.terminate()
            throw PeerError.noPort(script: script, output: text)
        }
        return PeerServer(port: port, process: process, stdinPipe: input)
    }

    func url(_ path: String, secure: Bool = false) -> URL {
        URL(string: "\(secure ? "wss" : "ws")://127.0.0.1:\(port)\(path)")!
    }

    func signal(_ signal: Int32) { kill(processIdentifier, signal) }

    func stop() {
        kill(processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit {
        if process.isRunning { kill(processIdentifier, SIGKILL) }
    }

    enum PeerError: Error, CustomStringConvertible {
        case noPort(script: String, output: String)
        var description: String {
            switch self {
            case .noPort(let script, let output): "\(script) did not print its port; output: \(output)"
            }
        }
    }
}

/// Servers shared by the tests that need no process-level control (no SIGSTOP).
enum SharedPeers {
    static let echo: Result<PeerServer, any Error> = Result { try PeerServer.start("echo_server.py") }
    static let adversarial: Result<PeerServer, any Error> = Result { try PeerServer.start("adversarial_server.py") }
}
