import Foundation
import TestScheduling
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
        process.executableURL = PythonInterpreter.executable
        process.arguments = PythonInterpreter.arguments(["-c", "import websockets, wsproto"])
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.runGated() } catch { return false }
        return process.waitForExit(within: .seconds(60)).succeeded
    }()

    /// In CI (env `CI` set) the peer tests run and fail if Python packages are missing;
    /// elsewhere they are skipped with this trait's comment.
    static let enabledTrait = Testing.ConditionTrait.enabled(
        if: pythonPeersAvailable || ProcessInfo.processInfo.environment["CI"] != nil,
        "needs python3 with the PyPI packages websockets and wsproto: pip install websockets wsproto")

    static let peersDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Peers")

    private init(port: Int, process: Process, stdinPipe: Pipe) {
        self.port = port
        self.process = process
        self.processIdentifier = process.processIdentifier
        self.stdinPipe = stdinPipe
    }

    /// Starts `Peers/<script>` and waits for its port, on a thread of its own (see ``offPool(_:)``).
    static func start(_ script: String, _ arguments: [String] = []) async throws -> PeerServer {
        try await offPool { try startBlocking(script, arguments) }
    }

    private static func startBlocking(_ script: String, _ arguments: [String]) throws -> PeerServer {
        guard pythonPeersAvailable else { throw PeerError.pythonPackagesMissing }
        let process = Process()
        process.executableURL = PythonInterpreter.executable
        process.arguments = PythonInterpreter.arguments(
            [peersDirectory.appendingPathComponent(script).path] + arguments)
        process.currentDirectoryURL = peersDirectory
        let output = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.runGated()
        let text = output.firstLine()
        guard let line = text.split(separator: "\n").first, line.hasPrefix("PORT "), let port = Int(line.dropFirst(5))
        else {
            process.terminate()
            throw PeerError.noPort(script: script, output: text)
        }
        return PeerServer(port: port, process: process, stdinPipe: input)
    }

    func url(_ path: String, secure: Bool = false) -> URL {
        URL(string: "\(secure ? "wss" : "ws")://127.0.0.1:\(port)\(path)")!
    }

    func signal(_ signal: Int32) { kill(processIdentifier, signal) }

    /// Kills the server and waits for the kernel to say it is gone (``ChildExit``).
    func stop() {
        kill(processIdentifier, SIGKILL)
        _ = process.waitForExit(within: .seconds(30), grace: .zero)
        stopped.set(true)
    }

    /// Set once ``stop()`` has reaped the process, whose number the kernel may then reuse.
    private let stopped = Locked(false)

    deinit {
        if !stopped.value { kill(processIdentifier, SIGKILL) }
    }

    enum PeerError: Error, CustomStringConvertible {
        case noPort(script: String, output: String)
        case pythonPackagesMissing
        case certificates
        var description: String {
            switch self {
            case .pythonPackagesMissing:
                "python3 with websockets and wsproto is required (pip install websockets wsproto)"
            case .certificates: "openssl could not make the test certificates"
            case .noPort(let script, let output): "\(script) did not print its port; output: \(output)"
            }
        }
    }
}

extension Pipe {
    /// What a server process wrote up to its first newline (its address, as a rule), or all
    /// it wrote if it ended before one. Blocks: call it off the pool.
    func firstLine() -> String {
        var text = ""
        while !text.contains("\n") {
            let chunk = fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        return text
    }
}

/// Runs blocking work (starting a process, waiting for its output) on a thread of its own.
///
/// Tests run in parallel on a cooperative pool of a couple of threads; a test blocked in
/// `waitUntilExit` or a pipe read there would stall every other test's socket I/O, and
/// under load that is long enough to trip the peers' timeouts.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// Servers shared by the tests that need no process-level control (no SIGSTOP), started once.
enum SharedPeers {
    private static let echoServer = OnceServer("echo_server.py")
    private static let adversarialServer = OnceServer("adversarial_server.py")
    private static let pongServer = OnceServer("pong_server.py")

    static var echo: PeerServer { get async throws { try await echoServer.get() } }
    static var adversarial: PeerServer { get async throws { try await adversarialServer.get() } }
    static var pong: PeerServer { get async throws { try await pongServer.get() } }
}

/// Starts its server on first use; later callers wait for the same one.
actor OnceServer {
    private let script: String
    private var started: Task<PeerServer, any Error>?

    init(_ script: String) { self.script = script }

    func get() async throws -> PeerServer {
        if let started { return try await started.value }
        // Test code: an unstructured task lets concurrent callers share one start.
        let task = Task { [script] in try await PeerServer.start(script) }
        started = task
        return try await task.value
    }
}
