import LiveConnectionRules
public import LiveConnectionTraces
public import SimulationKernel

extension Trace {
    /// Runs the trace again, as `livesim replay` and the `Traces/` regression suite do.
    ///
    /// ```swift
    /// let replay = try Trace(parsing: text).replay()
    /// replay.result.satisfies(trace.expectation!)   // the verdict
    /// replay.note                                    // set when the trace came from the other build
    /// ```
    ///
    /// In the build that recorded the observed section, the recorded strategy reproduces
    /// the run byte for byte. In the other build (debug ↔ release) the executor runs a
    /// different number of jobs, so a seeded random order picks differently and can miss
    /// a race the trace exists to show. There the replay is made faithful to what the
    /// trace recorded — the manager's machine receiving the same inputs in the same order —
    /// by trying the recorded strategy, then FIFO, then up to `interleavings` seeded random
    /// orders, and keeping the first run whose machine inputs equal the recorded ones (or,
    /// failing that, the one that follows them longest). ``TraceReplay/note`` says so.
    public func replay(interleavings: UInt64 = 256) throws(TraceReplayError) -> TraceReplay {
        let variant = try logicVariant()
        let strategy = scenario.strategy
        let recorded = run(strategy, variant)
        guard let observedBuild, observedBuild != .current else {
            return TraceReplay(result: recorded, strategy: strategy, note: nil)
        }
        let wanted = observed.compactMap(\.machineInput)
        let mismatch = "recorded in a \(observedBuild) build, replayed in a \(BuildMode.current) build"
        if Self.inputs(of: recorded) == wanted {
            return TraceReplay(
                result: recorded, strategy: strategy,
                note: "\(mismatch): `\(strategy)` still gives the manager the recorded \(wanted.count) inputs in order")
        }
        var best = (
            result: recorded, strategy: strategy, followed: Self.commonPrefix(Self.inputs(of: recorded), wanted)
        )
        let candidates = [StrategyChoice.fifo] + (1...max(interleavings, 1)).map(StrategyChoice.random(seed:))
        for candidate in candidates where candidate != strategy {
            let result = run(candidate, variant)
            let inputs = Self.inputs(of: result)
            if inputs == wanted {
                return TraceReplay(
                    result: result, strategy: candidate,
                    note: "\(mismatch): the builds run different numbers of executor jobs, so `\(strategy)` "
                        + "orders them differently here; replayed under `\(candidate)`, which gives the manager "
                        + "the recorded \(wanted.count) inputs in order")
            }
            let followed = Self.commonPrefix(inputs, wanted)
            if followed > best.followed { best = (result, candidate, followed) }
        }
        return TraceReplay(
            result: best.result, strategy: best.strategy,
            note: "\(mismatch): no interleaving tried reproduces the recorded inputs; `\(best.strategy)` follows "
                + "\(best.followed) of \(wanted.count) — the verdict may differ from the recording")
    }

    private func run(_ strategy: StrategyChoice, _ variant: LogicVariant) -> RunResult {
        var scenario = self.scenario
        scenario.strategy = strategy
        return SimulationRun(scenario, variant: variant).run()
    }

    private static func inputs(of result: RunResult) -> [String] {
        result.observedEvents.compactMap(\.machineInput)
    }

    /// How many of `wanted` come first in `inputs`, in order.
    private static func commonPrefix(_ inputs: [String], _ wanted: [String]) -> Int {
        zip(inputs, wanted).prefix { $0 == $1 }.count
    }
}

/// What `Trace.replay(interleavings:)` ran and why.
public struct TraceReplay: Sendable {
    /// The run (judge it with `result.satisfies(expectation)`).
    public var result: RunResult
    /// The strategy the run used: the trace's own, unless it was re-settled for this build.
    public var strategy: StrategyChoice
    /// Set when the trace was recorded in the other build; one line for the user.
    public var note: String?
}

extension ObservedEvent {
    /// The machine input of an `input <input> -> <effects>` event, as the run spells it.
    public var machineInput: String? {
        guard text.hasPrefix("input "), let arrow = text.range(of: " -> ") ?? text.range(of: " ->") else { return nil }
        return String(text[text.index(text.startIndex, offsetBy: 6)..<arrow.lowerBound])
    }
}
