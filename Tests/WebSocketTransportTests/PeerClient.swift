import Foundation

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
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", PeerServer.peersDirectory.appendingPathComponent(script).path] + arguments
        process.currentDirectoryURL = PeerServer.peersDirectory
        // One pipe for both streams, read to its end before waiting: a full pipe would block the script.
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let killer = DispatchWorkItem { [pid = process.processIdentifier] in kill(pid, SIGKILL) }
        let seconds = Double(deadline.components.seconds) + Double(deadline.components.attoseconds) * 1e-18
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: killer)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        killer.cancel()
        guard process.terminationStatus == 0, process.terminationReason == .exit else {
            let how =
                process.terminationReason == .uncaughtSignal
                ? "was killed at the \(deadline) deadline" : "exited \(process.terminationStatus)"
            throw Failed(description: "\(script) \(how): \(text)")
        }
        return text.split(separator: "\n").last.map(String.init) ?? ""
    }
}
