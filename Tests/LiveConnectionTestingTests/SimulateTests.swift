import LiveConnection
import LiveConnectionSimulator
import Synchronization
import Testing

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
        #expect(trace.observed.count == 6)
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
        #expect(recorder.entries.first?.trace.observed.map(\.text) == ["ran"])
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
        #expect(made.first?.trace.observed.map(\.text) == ["lost one"])
        #expect(
            made.first?.summary
                == "simulation seed 4 failed; replay: LIVESIM_SEED=4 swift test --filter 'SimulateTests/traitReportsThrownErrors'"
        )
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
                        if event == .phase(.open) { break }
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
        #expect(phases.contains("phase open"))
        #expect(phases.last?.contains("reason=\"error ECONNRESET\"") == true, "\(phases)")
        let schedule = try #require(recorder.entries.first).trace.scenario.schedule
        #expect(schedule.map(\.action) == [.subscribe("room"), .connect(endpoint: 0), .resetConnection])
        #expect(schedule[2].at == .seconds(1), "open at 0 ms (no latency), then one second")
    }

    @Test("an app intent without a manager, or a stale callback, is refused and not recorded")
    func performRefuses() throws {
        let recorder = SimulationRecorder()
        try SimulationRecorder.$current.withValue(recorder) {
            try simulate(seed: 1) { world in
                await #expect(throws: SimulationWorldError.needsManager(.disconnect)) {
                    try await world.perform(.disconnect)
                }
                await #expect(throws: SimulationWorldError.unsupported(.deliverStale(.pong))) {
                    try await world.perform(.deliverStale(.pong))
                }
            }
        }
        #expect(recorder.entries.first?.trace.scenario.schedule == [])
    }
}
