import Foundation
import LiveConnection
import LiveConnectionSimulator
import LiveConnectionTesting
import TestScheduling
import Testing

/// A user's screen model with a planted bug: it clears what it shows whenever the
/// connection starts over, as if resume would refill it (resume only replays what was
/// missed). It logs through the world's logger, as a model under test would.
struct ForgetfulFeed {
    private(set) var shown: [String] = []
    private var wasOpen = false
    let log: @Sendable (String) -> Void

    init(log: @escaping @Sendable (String) -> Void) { self.log = log }

    mutating func apply(_ event: ConnectionEvent) {
        switch event {
        case .phase(.open):
            wasOpen = true
        case .phase(.connecting) where wasOpen:
            log("reconnecting: clearing \(shown.count) lines")
            shown.removeAll()  // the planted bug
        case .message(.text(let text), _):
            shown.append(text)
        case .phase, .message, .gap:
            break
        }
    }
}

/// The user's test of that model, as a newcomer would write it: many seeds, faults drawn
/// from the world's randomness, and an expectation that stays true when shrinking takes
/// actions away (the screen against what the manager delivered, not against what the test
/// meant to send). Run only as a child process: it fails on purpose.
@Suite(
    "Planted bug in a user's model (run only as a child process)",
    .enabled(if: ProcessInfo.processInfo.environment["LIVESIM_DEMONSTRATE_PLANTED_BUG"] == "1"))
struct PlantedBugTests {
    @Test(.simulation, arguments: try Seeds.range(0..<200))
    func feedShowsEveryDeliveredMessage(seed: UInt64) throws {
        let (shown, delivered) = try simulate(seed: seed, timeLimit: .seconds(600)) { world in
            let events = try await world.run(world.makeManager()) { manager in
                let events = await manager.events()
                try await world.perform(.subscribe("room"), on: manager)
                try await world.perform(.connect(endpoint: 0), on: manager)
                var random = world.makeRandom()
                for number in 1...30 {
                    try await world.clock.sleep(for: random.duration(upTo: .milliseconds(1500)))
                    switch random.uniform(below: 8) {
                    case 0: try await world.perform(.resetConnection)
                    case 1: try await world.perform(.restartServer)
                    default: break
                    }
                    try await world.perform(.broadcast(topic: "room", text: "message \(number)"))
                }
                try await world.clock.sleep(for: .seconds(10))
                return events
            }
            var feed = ForgetfulFeed(log: world.logger(named: "feed").log)
            var delivered: [String] = []
            for await event in events {
                feed.apply(event)
                if case .message(.text(let text), _) = event { delivered.append(text) }
            }
            return (feed.shown, delivered)
        }
        #expect(shown == delivered)
    }
}

/// Runs the planted test as `swift test` would, then its replay line, and measures the report.
@Suite("Planted bug, end to end: shrunk, compact, replayable", .waitsOnPeers, .timeLimit(.minutes(10)))
struct PlantedBugEndToEndTests {
    static func runChild(in directory: URL, environment extra: [String: String] = [:]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["--testing-library", "swift-testing", "--filter", "PlantedBugTests"]
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment
        environment["LIVESIM_DEMONSTRATE_PLANTED_BUG"] = "1"
        environment["NO_COLOR"] = "1"
        environment.merge(extra) { $1 }
        process.environment = environment
        let run = try process.runCapturing(within: .seconds(540), mergingStandardError: true)
        return (run.exit.status, String(decoding: run.standardOutput, as: UTF8.self))
    }

    @Test(
        "a planted bug fails with a report under 40 lines whose trace is shrunk to at most 10 actions and replays through LIVESIM_TRACE",
        .enabled(
            if: ProcessInfo.processInfo.environment["LIVESIM_DEMONSTRATE_PLANTED_BUG"] == nil
                && ProcessInfo.processInfo.environment["LIVESIM_SEED"] == nil
                && ProcessInfo.processInfo.environment["LIVESIM_TRACE"] == nil
                && CommandLine.arguments[0].hasSuffix(".xctest")))
    func plantedBugEndToEnd() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "livesim-planted-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let (status, report) = try Self.runChild(in: directory)
        #expect(status != 0)
        // The report: everything but Swift Testing's own progress lines ("◇ … started."),
        // which it prints for every case of every test, failing or not.
        let lines = report.split(separator: "\n").filter { !$0.hasPrefix("◇") }
        #expect(lines.count < 40, "\(lines.count) lines:\n\(report)")
        // One summary naming the failing seeds, the shrink, and the replay line.
        let summary = try #require(lines.first { $0.contains("simulation: ") && $0.contains("seeds failed") })
        #expect(summary.contains("of 200 seeds failed"), "\(summary)")
        let replay = try #require(lines.first { $0.contains("replay: LIVESIM_TRACE=") }, "\(report)")
        let path = try #require(replay.split(separator: " ").first { $0.hasPrefix("LIVESIM_TRACE=") }?.dropFirst(14))
        let trace = try Trace(
            parsing: String(contentsOf: directory.appendingPathComponent(String(path)), encoding: .utf8))
        #expect(trace.scenario.schedule.count <= 10, "\(trace.encode())")
        #expect(trace.test == "PlantedBugTests/feedShowsEveryDeliveredMessage")
        #expect(trace.keptPerforms != nil)
        #expect(trace.scenario.duration < .seconds(600), "the real duration, not the time limit")
        // The model's own log line is in the shrunk run's timeline.
        #expect(trace.observed.contains { $0.text.hasPrefix("log feed: reconnecting: clearing") }, "\(trace.encode())")
        Self.record(report: lines.count, summary: String(summary), trace: trace)
        // Only the failure shown in full has its expectation printed and its traces attached.
        #expect(lines.filter { $0.contains("Expectation failed") }.count == 1, "\(report)")
        #expect(lines.filter { $0.contains("Attached") }.count == 3, "\(report)")

        // The replay line re-runs that one run: the same failure, its timeline printed.
        let (replayStatus, replayed) = try Self.runChild(
            in: directory, environment: ["LIVESIM_TRACE": String(path)])
        #expect(replayStatus != 0, "\(replayed)")
        #expect(replayed.contains("with 1 test case"), "\(replayed)")
        #expect(replayed.contains("replayed from \(path), timeline:"), "\(replayed)")
        #expect(!replayed.contains("this run is not the one in"), "\(replayed)")
        #expect(replayed.contains("replay: LIVESIM_TRACE=\(path) swift test"), "\(replayed)")
        for action in trace.scenario.schedule {
            #expect(replayed.contains(action.at.traceFormatted + " action " + action.action.traceWords), "\(replayed)")
        }
    }

    /// The figures, for the record (printed; tests never assert timings).
    static func record(report lines: Int, summary: String, trace: Trace) {
        print(
            "planted bug: report \(lines) lines; shrunk trace \(trace.scenario.schedule.count) actions; summary: \(summary)"
        )
    }
}
