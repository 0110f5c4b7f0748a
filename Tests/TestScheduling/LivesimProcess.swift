public import Foundation

/// The built `livesim`, run as a user runs it: in a fresh directory, with a deadline after
/// which it is terminated (so no test waits forever on it), output captured from files (no
/// pipe can fill and stall it).
///
/// ```swift
/// let run = try LivesimProcess.run(["connect", "ws://127.0.0.1:9/", "--duration", "1"], within: 30)
/// #expect(run.status == 0, "\(run)")
/// ```
///
/// The package's one runner of the CLI for tests: the CLI suites (LivesimTests) and the
/// transport's commands over OpenSSL and real sockets (WebSocketTransportTests) both use it.
/// Two runners had grown apart (one read pipes and threw on its deadline, the other wrote
/// files and reported it), so a fix to one did not reach the other.
public struct LivesimProcess {
    /// `livesim` next to the test bundle (both are products of the same build).
    public static let executable: URL? = {
        let sibling = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("livesim")
        return FileManager.default.isExecutableFile(atPath: sibling.path) ? sibling : nil
    }()

    public struct NotBuilt: Error, CustomStringConvertible {
        public init() {}

        public var description: String {
            "livesim is not built next to the test bundle (\(CommandLine.arguments[0])): run `swift build` first"
        }
    }

    /// How a run ended and what it printed (printed whole in a failing expectation's message).
    public struct Output: Sendable, CustomStringConvertible {
        public var status: Int32
        /// True when a signal ended it (`status` then holds its number).
        public var signalled: Bool
        /// True when the deadline passed and the test terminated it.
        public var timedOut: Bool
        public var standardOutput: String
        public var standardError: String

        public var description: String {
            let ending = timedOut ? "terminated at its deadline" : signalled ? "signal \(status)" : "exit \(status)"
            return "\(ending)\nstdout:\n\(standardOutput)\nstderr:\n\(standardError)"
        }
    }

    public let process = Process()
    public let directory: URL
    private let outURL: URL
    private let errURL: URL

    /// Starts `livesim arguments` in `directory` (a fresh temporary one by default).
    public init(_ arguments: [String], in directory: URL? = nil) throws {
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

    public static func freshDirectory() throws -> URL { try ScratchDirectory.fresh("livesim-cli") }

    /// What it has printed so far.
    public var standardOutputSoFar: String { (try? String(contentsOf: outURL, encoding: .utf8)) ?? "" }

    /// Polls (every 20 ms, up to `seconds`) until standard output contains `text`.
    public func waitForOutput(containing text: String, seconds: Double) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if standardOutputSoFar.contains(text) { return true }
            if !process.isRunning { return standardOutputSoFar.contains(text) }
            usleep(20_000)
        }
        return standardOutputSoFar.contains(text)
    }

    /// Waits for the exit, terminating the process (SIGTERM, then SIGKILL) after `seconds`.
    public func finish(within seconds: Double) -> Output {
        let exit = process.waitForExit(within: .milliseconds(Int(seconds * 1000)))
        return Output(
            status: exit.status, signalled: exit.signalled, timedOut: exit.timedOut,
            standardOutput: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            standardError: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }

    /// Runs `livesim arguments` to the end (or the deadline: a safety net for a hung run, not a
    /// timing; explore, shrink and check in a debug build on a loaded machine need the 120 s).
    public static func run(_ arguments: [String], in directory: URL? = nil, within seconds: Double = 120) throws
        -> Output
    {
        try LivesimProcess(arguments, in: directory).finish(within: seconds)
    }
}
