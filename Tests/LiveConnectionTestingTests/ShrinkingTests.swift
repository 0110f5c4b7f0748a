import Foundation
import LiveConnection
import LiveConnectionSimulator
import Testing

import typealias LiveConnection.Mutex

@testable import LiveConnectionTesting

/// The `.simulation` trait shrinks the failure it shows in full by re-running the case
/// with fewer `perform` calls; the shrunk trace replays through `kept-performs:`.
@Suite("Shrinking a user's failing test")
struct ShrinkingTests {
    struct Broken: Error {}

    /// Eight broadcasts, one a second; returns the numbers of those that were performed.
    static func eightBroadcasts(seed: UInt64) throws -> [Int] {
        try simulate(seed: seed) { world in
            var done: [Int] = []
            for number in 0..<8 {
                try await world.clock.sleep(for: .seconds(1))
                if try await world.perform(.broadcast(topic: "t", text: "\(number)")) { done.append(number) }
            }
            return done
        }
    }

    static func scratch() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "livesim-shrinking-\(ProcessInfo.processInfo.processIdentifier)-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test("a failing case is shrunk to the perform calls its failure needs, and the trace is written and attached")
    func shrinksToWhatTheFailureNeeds() async throws {
        let test = try #require(Test.current)
        let reports = Mutex<[SimulationFailureReport]>([])
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let trait = SimulationTrait(
            reporter: { report in reports.withLock { $0.append(report) } }, summarize: { _, _ in },
            traceDirectory: directory.path)
        await #expect(throws: Broken.self) {
            try await trait.provideScope(for: test, testCase: Test.Case.current) {
                // Fails whenever broadcasts 2 and 5 both went out: the shrinker must keep exactly those.
                let performed = try Self.eightBroadcasts(seed: 7)
                if performed.contains(2) && performed.contains(5) { throw Broken() }
            }
        }
        let report = try #require(reports.withLock { $0 }.first)
        #expect(
            report.trace.scenario.schedule.map(\.action) == [
                .broadcast(topic: "t", text: "2"), .broadcast(topic: "t", text: "5"),
            ])
        #expect(report.trace.keptPerforms == [2, 5])
        #expect(report.trace.test == "ShrinkingTests/shrinksToWhatTheFailureNeeds")
        #expect(report.original?.scenario.schedule.count == 8)
        #expect(report.original?.keptPerforms == nil)
        // The real duration: eight seconds of sleeps, not the hour of the time limit.
        #expect(report.original?.scenario.duration == .seconds(8))
        let written = directory.appendingPathComponent("ShrinkingTests.shrinksToWhatTheFailureNeeds-seed7.trace")
        #expect(try Trace(parsing: String(contentsOf: written, encoding: .utf8)) == report.trace)
    }

    @Test("a candidate that fails elsewhere (another expectation, another error) is not taken")
    func keepsTheSameFailure() async throws {
        struct Other: Error {}
        let test = try #require(Test.current)
        let reports = Mutex<[SimulationFailureReport]>([])
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let trait = SimulationTrait(
            reporter: { report in reports.withLock { $0.append(report) } }, summarize: { _, _ in },
            traceDirectory: directory.path)
        await #expect(throws: Broken.self) {
            try await trait.provideScope(for: test, testCase: Test.Case.current) {
                let performed = try Self.eightBroadcasts(seed: 7)
                // Without broadcast 0 it fails too, but differently: shrinking must not slide there.
                guard performed.contains(0) else { throw Other() }
                if performed.contains(6) { throw Broken() }
            }
        }
        let report = try #require(reports.withLock { $0 }.first)
        #expect(report.trace.keptPerforms == [0, 6])
    }

    @Test("shrinking: false reports the run as it failed")
    func switchedOff() async throws {
        let test = try #require(Test.current)
        let reports = Mutex<[SimulationFailureReport]>([])
        let trait = SimulationTrait(
            shrinking: false, reporter: { report in reports.withLock { $0.append(report) } }, summarize: { _, _ in })
        await #expect(throws: Broken.self) {
            try await trait.provideScope(for: test, testCase: Test.Case.current) {
                if try Self.eightBroadcasts(seed: 7).contains(5) { throw Broken() }
            }
        }
        let report = try #require(reports.withLock { $0 }.first)
        #expect(report.original == nil)
        #expect(report.trace.scenario.schedule.count == 8)
        #expect(report.trace.keptPerforms == nil)
    }

    @Test("the replay line of a trace names it as one shell word, and the test to filter")
    func replayLineForATrace() {
        #expect(
            ReplayCommand(seed: 3, tracePath: ".livesim/traces/S.t-seed3.trace", testName: "S/t").description
                == "LIVESIM_TRACE=.livesim/traces/S.t-seed3.trace swift test --filter 'S/t'")
        #expect(
            ReplayCommand(seed: 3, tracePath: "my traces/it's.trace", testName: "S/t").description
                == "LIVESIM_TRACE='my traces/it'\\''s.trace' swift test --filter 'S/t'")
    }

    @Test("a world that keeps some perform calls skips the others: nothing done, nothing recorded, false returned")
    func skippedPerforms() throws {
        let world = SimulationWorld(
            seed: 1, clock: VirtualClock(), configuration: ConnectionConfiguration(), keptPerforms: [1])
        #expect(!world.admit(.resetConnection))
        #expect(world.admit(.freeze))
        #expect(!world.admit(.thaw))
        world.record(.restartServer)  // recorded by the test itself: never skipped
        let trace = world.trace(strategy: .fifo, name: "t", test: "Suite/test")
        #expect(trace.scenario.schedule.map(\.action) == [.freeze, .restartServer])
        #expect(trace.keptPerforms == [1])
        #expect(world.performedNumbers == [1])
    }

    @Test("the model's own logger writes into the trace at its moment, named; SimulationWorld.current reaches it")
    func loggerReachesTheTrace() throws {
        let recorder = SimulationRecorder()
        try SimulationRecorder.$current.withValue(recorder) {
            try simulate(seed: 3) { world in
                let log = world.logger(named: "model").log
                try await world.clock.sleep(for: .milliseconds(1500))
                log("acted")
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { SimulationWorld.current?.logger("from a child task") }
                    try await group.waitForAll()
                }
            }
        }
        let lines = recorder.entries.first?.trace.observed.map(\.traceLine)
        #expect(lines == ["1500ms log model: acted", "1500ms log from a child task"])
    }
}
