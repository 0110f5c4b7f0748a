import Foundation
import TestScheduling

/// The built `livesim`, run as a user runs it: in a fresh directory, with a deadline after
/// which it is terminated (so no test waits forever on it), output captured from files (no
/// pipe can fill and stall it).
struct LivesimProcess {
    /// `livesim` next to the test bundle (both are products of the same build).
    static let executable: URL? = {
        let sibling = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("livesim")
        return FileManager.default.isExecutableFile(atPath: sibling.path) ? sibling : nil
    }()

    struct NotBuilt: Error, CustomStringConvertible {
        var description: String {
            "livesim is not built next to the test bundle (\(CommandLine.arguments[0])): run `swift build` first"
        }
    }

    struct Output {
        var status: Int32
        /// True when a signal ended it (`status` then holds its number).
        var signalled: Bool
        /// True when the deadline passed and the test terminated it.
        var timedOut: Bool
        var standardOutput: String
        var standardError: String
    }

    let process = Process()
    let directory: URL
    private let outURL: URL
    private let errURL: URL

    /// Starts `livesim arguments` in `directory` (a fresh temporary one by default).
    init(_ arguments: [String], in directory: URL? = nil) throws {
        guard let executable = Self.executable else { throw NotBuilt() }
        self.directory = try directory ?? Self.freshDirectory()
        outURL = self.directory.appendingPathComponent(".stdout-\(UUID().uuidString)")
        errURL = self.directory.appendingPathComponent(".stderr-\(UUID().uuidString)")
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = self.directory
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        try process.runGated()
    }

    static func freshDirectory() throws -> URL { try ScratchDirectory.fresh("livesim-cli") }

    /// What it has printed so far.
    var standardOutputSoFar: String { (try? String(contentsOf: outURL, encoding: .utf8)) ?? "" }

    /// Polls (every 20 ms, up to `seconds`) until standard output contains `text`.
    func waitForOutput(containing text: String, seconds: Double) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if standardOutputSoFar.contains(text) { return true }
            if !process.isRunning { return standardOutputSoFar.contains(text) }
            usleep(20_000)
        }
        return standardOutputSoFar.contains(text)
    }

    /// Waits for the exit, terminating the process (SIGTERM, then SIGKILL) after `seconds`.
    func finish(within seconds: Double) -> Output {
        let exit = process.waitForExit(within: .milliseconds(Int(seconds * 1000)))
        return Output(
            status: exit.status, signalled: exit.signalled, timedOut: exit.timedOut,
            standardOutput: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            standardError: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }

    /// Runs `livesim arguments` to the end (or the deadline: a safety net for a hung run, not a
    /// timing; explore, shrink and check in a debug build on a loaded machine need the 120 s).
    static func run(_ arguments: [String], in directory: URL? = nil, within seconds: Double = 120) throws -> Output {
        try LivesimProcess(arguments, in: directory).finish(within: seconds)
    }
}

/// `Peers/ws_peer.py MODE` on loopback: a WebSocket server that hangs, records the close
/// frame it gets, or closes with 1008. Standard library Python only. It exits when this
/// process closes its standard input.
final class WebSocketPeer {
    private(set) var port: Int
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffered = ""

    struct NoPort: Error {}

    init(_ mode: String) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Peers/ws_peer.py")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, mode]
        process.standardInput = input
        process.standardOutput = output
        try process.runGated()
        port = 0
        guard let line = readLine(), line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) else {
            throw NoPort()
        }
        self.port = port
    }

    var url: String { "ws://127.0.0.1:\(port)/" }

    /// The next line the peer prints, or nil if none comes within `seconds`.
    func readLine(within seconds: Double = 15) -> String? {
        let descriptor = output.fileHandleForReading.fileDescriptor
        let end = Date().addingTimeInterval(seconds)
        while !buffered.contains("\n") {
            let remaining = end.timeIntervalSinceNow
            guard remaining > 0 else { return nil }
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, Int32(remaining * 1000)) > 0 else { return nil }
            var bytes = [UInt8](repeating: 0, count: 4096)
            let count = read(descriptor, &bytes, bytes.count)
            guard count > 0 else { return nil }
            buffered += String(decoding: bytes[..<count], as: UTF8.self)
        }
        let line = buffered.prefix { $0 != "\n" }
        buffered.removeFirst(line.count + 1)
        return String(line)
    }

    deinit {
        try? input.fileHandleForWriting.close()
        _ = process.waitForExit(within: .seconds(30))
    }
}
