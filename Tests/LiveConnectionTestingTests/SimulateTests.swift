import LiveConnection
import LiveConnectionSimulator
import Testing

import typealias LiveConnection.Mutex

@testable import LiveConnectionTesting

@Suite("simulate(seed:)")
struct SimulateTests {
    /// A small body whose output depends on the executor's choices and on the world's randomness.
    static func racingSleepers(seed: UInt64) throws -> (order: [Int], trace: String) {
        let recorder = SimulationRecorder()
        let order = try SimulationRecorder.$current.withValue(recorder) {
            try simulate(seed: seed, timeLimit: .seconds(60)) { world in
                var random = world.makeRandom()
                let delays = (0..<6).map { _ in random.duration(upTo: .seconds(2)) }
                return try await withThrowingTaskGroup(of: Int.self) { group in
                    for (index, delay) in delays.enumerated() {
                        group.addTask {
                            try await world.clock.sleep(for: delay)
                            world.log("sleeper \(index) woke")
                            return index
                        }
                    }
                    world.record(.resetConnection)
                    var order: [Int] = []
                    for try await index in group { order.append(index) }
                    return order
                }
            }
        }
        let entry = try #require(recorder.entries.first)
        #expect(entry.seed == seed)
        return (order, entry.trace.encode())
    }

    @Test(
        "the same seed gives the same bytes; the trace records the actions and the log",
        arguments: 0..<20 as Range<UInt64>)
    func determinism(seed: UInt64) throws {
        let first = try Self.racingSleepers(seed: seed)
        let second = try Self.racingSleepers(seed: seed)
        #expect(first.order == second.order)
        #expect(first.trace == second.trace)
        let trace = try Trace(parsing: first.trace)
        #expect(trace.scenario.seed == seed)
        #expect(trace.scenario.schedule == [ScheduledAction(at: .zero, .resetConnection)])
        #expect(trace.observed.count == 7, "six log lines and the action")
        #expect(trace.observed.first?.text == "action reset")
        #expect(trace.observed.map(\.at) == trace.observed.map(\.at).sorted())
    }

    @Test("different seeds give different runs")
    func seedsDiffer() throws {
        let traces = try (0..<5 as Range<UInt64>).map { try Self.racingSleepers(seed: $0).trace }
        #expect(Set(traces).count == 5)
    }

    @Test("the body's error is rethrown")
    func rethrowsTheBodysError() {
        struct Broken: Error {}
        let recorder = SimulationRecorder()
        #expect(throws: Broken.self) {
            try SimulationRecorder.$current.withValue(recorder) {
                try simulate(seed: 1) { _ in throw Broken() }
            }
        }
        #expect(recorder.entries.map(\.seed) == [1])
    }

    @Test("a body that waits for nothing that can happen is reported as a deadlock")
    func deadlock() {
        let recorder = SimulationRecorder()
        #expect(throws: SimulationError.self) {
            try SimulationRecorder.$current.withValue(recorder) {
                try simulate(seed: 1) { _ in
                    let (stream, _) = AsyncStream.makeStream(of: Int.self)
                    for await _ in stream {}
                }
            }
        }
    }

    @Test(
        "the .simulation trait gives each test case a recorder that simulate() registers with", .simulation,
        arguments: [3, 4] as [UInt64])
    func traitInstallsRecorder(seed: UInt64) throws {
        let recorder = try #require(SimulationRecorder.current)
        try simulate(seed: seed) { world in world.log("ran") }
        #expect(recorder.entries.map(\.seed) == [seed])
        #expect(recorder.entries.first?.trace.observed.map(\.text) == ["log ran"])
    }

    @Test("the trait rethrows a failing body's error after reporting it")
    func traitRethrows() async throws {
        struct Broken: Error {}
        let test = try #require(Test.current)
        await #expect(throws: Broken.self) {
            try await SimulationTrait().provideScope(for: test, testCase: Test.Case.current) {
                try simulate(seed: 9) { _ in () }
                throw Broken()
            }
        }
    }

    @Test("a known issue is not a failure: nothing is reported")
    func traitIgnoresKnownIssues() async throws {
        let test = try #require(Test.current)
        let reports = Mutex<[SimulationFailureReport]>([])
        let trait = SimulationTrait { report in reports.withLock { $0.append(report) } }
        await withKnownIssue {
            try await trait.provideScope(for: test, testCase: Test.Case.current) {
                try simulate(seed: 4) { _ in () }
                Issue.record("a known problem")
            }
        }
        #expect(reports.withLock { $0 }.isEmpty)
    }

    @Test("a thrown error reports every simulation of the case, with its trace")
    func traitReportsThrownErrors() async throws {
        struct Broken: Error {}
        let test = try #require(Test.current)
        let reports = Mutex<[SimulationFailureReport]>([])
        let trait = SimulationTrait { report in reports.withLock { $0.append(report) } }
        await #expect(throws: Broken.self) {
            try await trait.provideScope(for: test, testCase: Test.Case.current) {
                try simulate(seed: 4) { world in world.log("lost one") }
                try simulate(seed: 5) { _ in () }
                throw Broken()
            }
        }
        let made = reports.withLock { $0 }
        #expect(made.map(\.seed) == [4, 5])
        #expect(made.first?.trace.observed.map(\.text) == ["log lost one"])
        #expect(made.first?.pictureName == "seed4.svg")
        #expect(made.first?.picture.contains("<title>0ms lost one</title>") == true)
        #expect(
            made.first?.summary
                == "simulation seed 4 failed; replay: LIVESIM_SEED=4 swift test --filter 'SimulateTests/traitReportsThrownErrors'"
        )
    }

    @Test("one summary for all cases of a test: the failing seeds in order, the one in full, and its replay line")
    func traitSummarizes() async throws {
        struct Broken: Error {}
        let test = try #require(Test.current)
        let lines = Mutex<[String]>([])
        let trait = SimulationTrait(reporter: { _ in }, summarize: { line, _ in lines.withLock { $0.append(line) } })
        try await trait.provideScope(for: test, testCase: nil) {
            for seed: UInt64 in [5, 3, 8, 1] {
                try? await trait.provideScope(for: test, testCase: Test.Case.current) {
                    try simulate(seed: seed) { _ in () }
                    if seed != 1 { throw Broken() }
                }
            }
        }
        #expect(
            lines.withLock { $0 } == [
                "simulation: 3 of 4 seeds failed (3 5 8); seed 5 in full; "
                    + "replay: LIVESIM_SEED=5 swift test --filter 'SimulateTests/traitSummarizes'"
            ])
    }

    @Test("a failing case that simulated nothing keeps its error: the summary has no seed to name it by")
    func traitLeavesOtherFailuresAlone() async throws {
        struct Broken: Error {}
        let test = try #require(Test.current)
        let lines = Mutex<[String]>([])
        let thrown = Mutex(0)
        let trait = SimulationTrait(reporter: { _ in }, summarize: { line, _ in lines.withLock { $0.append(line) } })
        try await trait.provideScope(for: test, testCase: nil) {
            for _ in 0..<2 {
                do {
                    try await trait.provideScope(for: test, testCase: Test.Case.current) { throw Broken() }
                } catch is Broken {
                    thrown.withLock { $0 += 1 }
                }
            }
        }
        #expect(thrown.withLock { $0 } == 2)
        #expect(lines.withLock { $0 }.isEmpty)
    }

    @Test("a passing case reports nothing")
    func traitQuietOnSuccess() async throws {
        let test = try #require(Test.current)
        let reports = Mutex<[SimulationFailureReport]>([])
        let trait = SimulationTrait { report in reports.withLock { $0.append(report) } }
        try await trait.provideScope(for: test, testCase: Test.Case.current) {
            try simulate(seed: 4) { _ in () }
        }
        #expect(reports.withLock { $0 }.isEmpty)
    }
}

@Suite("SimulationWorld")
struct SimulationWorldTests {
    @Test("perform does an action in the network or on the manager and records it at its virtual time")
    func performRecords() throws {
        let recorder = SimulationRecorder()
        let phases = try SimulationRecorder.$current.withValue(recorder) {
            try simulate(seed: 2, timeLimit: .seconds(60)) { world in
                let manager = world.makeManager()
                return try await world.run(manager) { manager in
                    var events = await manager.events().makeAsyncIterator()
                    try await world.perform(.subscribe("room"), on: manager)
                    try await world.perform(.connect(endpoint: 0), on: manager)
                    var phases: [String] = []
                    while let event = await events.next() {
                        phases.append("\(event)")
                        if case .phase(.open) = event { break }
                    }
                    try await world.clock.sleep(for: .seconds(1))
                    try await world.perform(.resetConnection)
                    while let event = await events.next() {
                        phases.append("\(event)")
                        if case .phase(.waiting) = event { break }
                    }
                    return phases
                }
            }
        }
        #expect(phases.first == "phase idle")
        #expect(phases.contains("phase open attempt=1"))
        #expect(phases.last?.contains("reason=\"error ECONNRESET\"") == true, "\(phases)")
        let schedule = try #require(recorder.entries.first).trace.scenario.schedule
        #expect(schedule.map(\.action) == [.subscribe("room"), .connect(endpoint: 0), .resetConnection])
        #expect(schedule[2].at == .seconds(1), "open at 0 ms (no latency), then one second")
    }

    @Test("the trace's timeline interleaves actions, the manager's phases and deliveries, and the test's log by time")
    func timelineTellsTheStory() throws {
        let recorder = SimulationRecorder()
        try SimulationRecorder.$current.withValue(recorder) {
            try simulate(seed: 3, timeLimit: .seconds(60)) { world in
                try await world.run(world.makeManager()) { manager in
                    try await world.perform(.subscribe("room"), on: manager)
                    try await world.perform(.connect(endpoint: 0), on: manager)
                    try await world.clock.sleep(for: .seconds(1))
                    try await world.perform(.broadcast(topic: "room", text: "hi"))
                    try await world.clock.sleep(for: .seconds(1))
                    world.log("screen shows 1")
                    try await world.perform(.resetConnection)
                    try await world.clock.sleep(for: .seconds(2))
                }
            }
        }
        let trace = try #require(recorder.entries.first).trace
        let lines = trace.observed.map(\.traceLine)
        // Seed 3 draws a 759 ms backoff; the rest is the story of the test's own steps.
        #expect(
            lines == [
                "0ms action subscribe room",
                "0ms action connect endpoint=0",
                "0ms m1 phase connecting attempt=1",
                "0ms m1 phase open attempt=1",
                "1000ms action broadcast topic=room text=hi",
                "1000ms m1 deliver seq=1",
                "2000ms log screen shows 1",
                "2000ms action reset",
                "2000ms m1 phase waiting 759.472479ms reason=\"error ECONNRESET\"",
                "2759.472479ms m1 phase connecting attempt=2",
                "2759.472479ms m1 phase open attempt=2",
                "4000ms m1 phase stopped reason=\"disconnected\"",
            ], "\(lines.joined(separator: "\n"))")
        // The timeline survives the trace file's round trip.
        #expect(try Trace(parsing: trace.encode()).observed == trace.observed)
    }

    @Test("an app intent without a manager is refused and not recorded")
    func performRefuses() throws {
        let recorder = SimulationRecorder()
        try SimulationRecorder.$current.withValue(recorder) {
            try simulate(seed: 1) { world in
                await #expect(throws: SimulationWorldError.needsManager(.disconnect)) {
                    try await world.perform(.disconnect)
                }
            }
        }
        #expect(recorder.entries.first?.trace.scenario.schedule == [])
    }

    @Test("a stale close is the network's: the old connection delivers it after the switch, and the new one stays open")
    func staleCloseThroughTheWorld() throws {
        let recorder = SimulationRecorder()
        let (phase, statistics) = try SimulationRecorder.$current.withValue(recorder) {
            try simulate(seed: 4, timeLimit: .seconds(60)) { world in
                try await world.run(world.makeManager()) { manager in
                    try await world.perform(.connect(endpoint: 0), on: manager)
                    try await world.clock.sleep(for: .seconds(1))
                    // No manager needed: the connection held now is armed.
                    try await world.perform(.deliverStale(.close, after: .seconds(2)))
                    try await world.perform(.connect(endpoint: 1), on: manager)
                    try await world.clock.sleep(for: .seconds(5))
                    return (await manager.phase, world.network.statistics)
                }
            }
        }
        #expect(statistics.lateCallbacks == 1, "the old connection delivered its close")
        // The late close of the first connection, 2 s after the switch, tears nothing down:
        // two connections in all, the second still open.
        #expect(statistics.connectionsOpened == 2, "\(statistics)")
        #expect(phase.isOpen, "\(phase)")
        let schedule = try #require(recorder.entries.first).trace.scenario.schedule
        #expect(schedule.map(\.action).contains(.deliverStale(.close, after: .seconds(2))))
    }
}
