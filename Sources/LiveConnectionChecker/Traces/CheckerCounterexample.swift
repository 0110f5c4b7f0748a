import LiveConnection
import LiveConnectionSimulator
public import LiveConnectionTraces
import SimulationKernel

/// A counterexample the model checker found in the connection model, written as a
/// simulator trace so that `livesim replay` runs it against the real shell in virtual time.
///
/// ```swift
/// let model = try ConnectionModel(variant: .named("skips-resubscribe")!)
/// let violation = model.check().violation!
/// var written = model.trace(of: violation)
/// let replay = try written.settle()   // picks the executor's interleaving, sets `expect:`
/// replay.summary                      // "the shell received the counterexample's 4 inputs in order; …"
/// try TraceLibrary(directory: URL(fileURLWithPath: "Traces")).write(written.trace, named: written.fileName)
/// ```
///
/// The trace records what the server, network and app do and when (see `TraceRealizer`
/// for how abstract steps get their instants); the manager's backoff draws are the
/// counterexample's own, through the trace's `manager-words`. The model abstracts time, so
/// a path can need an ordering real durations forbid: such steps are listed in ``gaps``
/// and the replay shows how far the shell followed.
///
/// The checker's member of the counterexample family (each named for where it was found,
/// each with a `trace` and a `fileName`): `SimulationCounterexample` is a simulated run the
/// invariants failed, shrunk; `WireCounterexample` a client the wire judge failed, shrunk;
/// this one is written from a ``CounterexamplePath`` (the search's path of abstract states,
/// already shortest breadth-first, so nothing is shrunk), and ``CounterexampleReplay`` is
/// what replaying it showed.
public struct CheckerCounterexample: Sendable {
    /// The trace to write (``settle(interleavings:)`` sets its strategy and `expect:` line).
    public var trace: Trace
    /// The property the counterexample violates.
    public var property: String
    /// The machine inputs of the counterexample, spelled as the simulated run logs them.
    public var expectedInputs: [String]
    /// Steps the simulated world cannot reproduce as the model took them.
    public var gaps: [String]

    /// `checker-<variant>-<property>.trace`.
    public var fileName: String { "checker-\(trace.variant ?? "correct")-\(property).trace" }

    /// Finds an interleaving of the simulator's executor under which the shell follows the
    /// counterexample, and sets the trace's strategy, `expect:` line and observed section
    /// from that run.
    ///
    /// Steps the model puts at one instant (a timer firing, then a late callback, while a
    /// zero-delay retry is armed) race in the real shell exactly as they would in
    /// production; FIFO order is tried first, then up to `interleavings` seeded random orders.
    /// The first run that follows every step wins; if none does, the one that follows
    /// the most (FIFO on a tie). Deterministic: the same counterexample settles the same way.
    public mutating func settle(interleavings: UInt64 = 256) throws(TraceReplayError) -> CounterexampleReplay {
        var best = try replay()
        var bestStrategy = StrategyChoice.fifo
        var seed: UInt64 = 1
        while !best.followed, seed <= interleavings {
            trace.scenario.strategy = .random(seed: seed)
            let candidate = try replay()
            if candidate.matched > best.matched {
                best = candidate
                bestStrategy = trace.scenario.strategy
            }
            seed += 1
        }
        trace.scenario.strategy = bestStrategy
        trace.expectation = best.expectation
        trace.observed = best.observed
        return best
    }

    /// Runs the trace in the simulator and compares what the shell's machine received with
    /// the counterexample.
    public func replay() throws(TraceReplayError) -> CounterexampleReplay {
        let result = SimulationRun(trace.scenario, variant: try trace.logicVariant()).run()
        let received = result.log.compactMap(Self.input(ofLogLine:))
        var matched = 0
        for input in received where matched < expectedInputs.count && input == expectedInputs[matched] {
            matched += 1
        }
        return CounterexampleReplay(
            expected: expectedInputs, received: received, matched: matched,
            violations: result.violations.map(\.rule.name), log: result.log, observed: result.observedEvents)
    }

    /// The input of a run log line `<time> input <input> -> <effects>`.
    static func input(ofLogLine line: String) -> String? {
        guard let start = line.range(of: " input "),
            let end = line.range(of: " -> ", range: start.upperBound..<line.endIndex)
        else { return nil }
        return String(line[start.upperBound..<end.lowerBound])
    }
}

/// What replaying a ``CheckerCounterexample`` in the simulator showed.
public struct CounterexampleReplay: Sendable {
    /// The counterexample's machine inputs.
    public var expected: [String]
    /// Every input the simulated shell's machine handled, in order.
    public var received: [String]
    /// How many of `expected`, in order, appear in `received` (a subsequence: the
    /// simulated world may add inputs of its own, such as a flush completing).
    public var matched: Int
    /// The simulator invariants violated, in the order found.
    public var violations: [String]
    /// The run's log.
    public var log: [String]
    /// The run's log as a trace's observed section (for `livesim diff`).
    public var observed: [ObservedEvent]

    /// The shell lived every step of the counterexample.
    public var followed: Bool { matched == expected.count }

    /// What the trace should expect when replayed: the first violation, or a pass.
    public var expectation: Expectation { violations.first.map(Expectation.violation) ?? .pass }

    /// One line for a report.
    public var summary: String {
        let path =
            followed
            ? "the shell received the counterexample's \(expected.count) inputs in order"
                + (received.count > expected.count ? " (and \(received.count - expected.count) more of its own)" : "")
            : "the shell followed \(matched) of the counterexample's \(expected.count) inputs; the next, "
                + "\"\(expected[matched])\", did not come \(violations.isEmpty ? "" : "before the run stopped at a violation")"
        let verdict =
            violations.isEmpty
            ? "every simulator invariant held" : "violated \(violations.joined(separator: ", "))"
        return "\(path); \(verdict)"
    }
}

extension ConnectionModel {
    /// The counterexample of `violation` as a simulator trace (see ``CheckerCounterexample``).
    public func trace(of violation: PropertyViolation<ConnectionModel>) -> CheckerCounterexample {
        let steps = replay(violation.counterexample).steps
        let simulated = codebook.endpoints.indices.map(Scenario.endpoint)
        let aftermath =
            configuration.connectTimeout + (configuration.heartbeatInterval + configuration.heartbeatTimeout) * 2
            + configuration.backoff.maximumDelay + .seconds(1)
        // The model's log is the feed of a topic the app subscribed first and never leaves
        // (the simulator's own convention), outside the topics the model's app toggles.
        let carriesLog = steps.contains { if case .broadcast = $0.action { true } else { false } }
        let feedTopic = carriesLog ? TraceRealizer.logTopic : codebook.topics.first ?? TraceRealizer.logTopic
        var realizer = TraceRealizer(
            steps: steps, endpoints: codebook.endpoints, feedTopic: feedTopic, subscribesFeed: carriesLog,
            aftermath: aftermath)
        realizer.realize()
        let expected = steps.compactMap { step -> String? in
            guard var input = step.action.input else { return nil }
            if case .connect(let endpoint) = input, let index = codebook.endpoints.firstIndex(of: endpoint) {
                input = .connect(simulated[index])
            }
            return input.description
        }
        let scenario = Scenario(
            seed: 0, configuration: configuration, strategy: .fifo, duration: realizer.end,
            schedule: realizer.schedule, managerSeed: 0, managerWords: steps.flatMap(\.words), logCapacity: 1_000,
            feedTopic: feedTopic)
        let trace = Trace(scenario: scenario, generator: Self.traceGenerator, variant: variant)
        return CheckerCounterexample(
            trace: trace, property: violation.property, expectedInputs: expected, gaps: realizer.gaps)
    }

    /// The `generator` line of a trace the checker writes.
    public static let traceGenerator = GeneratorID(name: "checker", version: 1)
}
