import Foundation
import TestScheduling

/// A Python test client (`Peers/*.py`) run to completion against one of our servers: the
/// last line of its output is its verdict, a non-zero exit its complaint.
///
/// ```swift
/// let verdict = try await PeerClient.run("deflate_client.py", [url, "{}", "echo"])
/// ```
///
/// Killed at the deadline, so a server that never answers fails the test instead of hanging it.
enum PeerClient {
    struct Failed: Error, CustomStringConvertible {
        var description: String
    }

    static func run(_ script: String, _ arguments: [String], deadline: Duration = .seconds(180)) async throws
        -> String
    {
        try await offPool { try runBlocking(script, arguments, deadline: deadline) }
    }

    private static func runBlocking(_ script: String, _ arguments: [String], deadline: Duration) throws -> String {
        guard PeerServer.pythonPeersAvailable else { throw PeerServer.PeerError.pythonPackagesMissing }
        let process = Process()
        process.executableURL = PythonInterpreter.executable
        process.arguments = PythonInterpreter.arguments(
            [PeerServer.peersDirectory.appendingPathComponent(script).path] + arguments)
        process.currentDirectoryURL = PeerServer.peersDirectory
        process.standardInput = FileHandle.nullDevice
        let run = try process.runCapturing(within: deadline, grace: .zero, mergingStandardError: true)
        let text = String(decoding: run.standardOutput, as: UTF8.self)
        guard run.exit.succeeded else {
            let how = run.exit.timedOut ? "was killed at the \(deadline) deadline" : "\(run.exit)"
            throw Failed(description: "\(script) \(how): \(text)")
        }
        return text.split(separator: "\n").last.map(String.init) ?? ""
    }
}
