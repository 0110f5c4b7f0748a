import LiveConnection
import TestScheduling
import Testing

@testable import LiveConnectionChecker
@testable import LiveConnectionSimulator

/// The model's server sends its log as the contract says (in order from the connection's
/// cursor, which a resume frame sets), and `exactly-once-in-order` judges what the app is
/// handed against that log. Issue 31 item 5: two mistakes planted in the shipped machine
/// passed the checker while its server sent any sequence number at any time and its
/// property checked only that deliveries increase. Each is planted here as a wrapper (the
/// shipped machine has no switch), beside `.ci/plants`, which plants them in the source.
@Suite("The server's log reaches the app exactly once, in order", .computeBound)
struct ServerLogTests {
    /// The smallest world where a lost message shows: two sequence numbers (the loss is
    /// seen when the next message is delivered), no topics, no commands.
    static var world: ConnectionBounds {
        var bounds = ConnectionBounds()
        bounds.topics = 0
        bounds.commands = 0
        bounds.serverLog = 2
        return bounds
    }

    /// The model of the machine inside `wrapper`, in ``world``.
    static func model(_ wrapper: any MachineWrapper.Type) throws -> ConnectionModel {
        let variant = LogicVariant(name: "\(wrapper)", summary: "", breaks: nil, wrapper: wrapper)
        return try ConnectionModel(bounds: world, variant: variant)
    }

    static func violation(_ wrapper: any MachineWrapper.Type) throws -> PropertyViolation<ConnectionModel>? {
        var options = CheckOptions()
        options.checkEventually = false
        return try model(wrapper).check(options).violation
    }

    @Test(
        "a mistake in the delivery path is caught by exactly-once-in-order, with a shortest counterexample",
        arguments: [
            // connect, opened, flushed → open, connect B, opened g2 → resume after 1,
            // broadcast 1, broadcast 2, received 2: message 1 is never sent to the app.
            (ResumesAfterNext.self as any MachineWrapper.Type, 8),
            // connect, opened, broadcast 1, received 1 (dropped while resubscribing),
            // flushed → open, broadcast 2, received 2: message 1 is lost.
            (DropsWhileResubscribing.self, 7),
            // connect, opened, broadcast 1, received 1, received 1 again: delivered twice.
            (DeliversDuplicates.self, 5),
        ])
    func caught(wrapper: any MachineWrapper.Type, length: Int) throws {
        let violation = try #require(try Self.violation(wrapper), "\(wrapper) passed")
        #expect(violation.property == Rule.exactlyOnceInOrder.name)
        #expect(violation.counterexample.length == length)
        // Minimal: with the depth bound one short, nothing fails.
        var shorter = CheckOptions()
        shorter.maxDepth = length - 1
        shorter.checkEventually = false
        let bounded = try Self.model(wrapper).check(shorter)
        #expect(bounded.violation == nil || bounded.violation?.kind == .sometimes)
    }

    @Test("the counterexample of a resume one too far shows the resume frame and the skipped message")
    func resumeCounterexampleReads() throws {
        let violation = try #require(try Self.violation(ResumesAfterNext.self))
        let lines = try Self.model(ResumesAfterNext.self).replay(violation.counterexample).lines
        #expect(lines.contains { $0.contains("resume after 1") }, "\(lines)")
        #expect(lines.last { $0.hasPrefix("8.") } == "8. received g2 seq=2", "\(lines)")
    }

    @Test("the shipped machine is handed the log exactly once, in order, in a world of two sequence numbers")
    func shippedMachinePasses() throws {
        // Small enough for a debug build: one endpoint (a reconnect still happens through a
        // reset and the retry), no app ping, no lifecycle or path reports.
        var bounds = Self.world
        bounds.pings = 0
        bounds.endpoints = 1
        bounds.lifecycle = false
        bounds.networkPath = false
        // Every behaviour in CI's release step; in a debug run, every behaviour of up to 10
        // steps (``TestScale/serverLogDepth``), longer than each planted mistake's
        // counterexample in `caught` above.
        var options = CheckOptions()
        options.maxDepth = TestScale.serverLogDepth.current
        let result = try ConnectionModel(bounds: bounds).check(options)
        #expect(
            result.passed,
            "\(String(describing: result.violation?.property)): \(String(describing: result.violation?.message))")
        #expect(result.statistics.exhausted)
        #expect(result.statistics.depthBoundHit == !TestScale.serverLogDepth.isAll)
        #expect(TestScale.serverLogDepth.reaches(8), "the longest planted mistake's counterexample is 8 steps")
    }

    @Test("a packed state keeps the first evidence of its step, which names the first property it violates")
    func packedEvidenceNamesTheFirstProperty() throws {
        let model = try ConnectionModel()
        let initial = try #require(model.initialStates.first)
        let invariants = model.properties.filter { $0.kind == .always }
        for index in 0..<21 {
            var environment = Environment()
            // The evidence and every later one: only the first survives packing.
            environment.evidence = Evidence(rawValue: ~0 << UInt32(index) & (1 << 21 - 1))
            let state = ConnectionModel.State(machine: initial.machine, environment: environment.word)
            #expect(Environment.evidence(state.environment) == Evidence(rawValue: 1 << UInt32(index)))
            let first = invariants.firstIndex { property in
                guard case .always(let violation) = property.check else { return false }
                return violation(state) != nil
            }
            #expect(first == index, "evidence \(index) reports \(first.map { invariants[$0].name } ?? "nothing")")
        }
    }
}

/// Asks the server to resume after the message past the last one delivered: one message
/// is skipped after every reconnect (issue 31's `resume-after-next`, as a wrapper).
struct ResumesAfterNext: MachineWrapper {
    var base: ConnectionMachine
    init(base: ConnectionMachine) { self.base = base }

    mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        base.handle(input, using: &random).map { effect in
            guard case .send(let g, .control(.resume(let after))) = effect else { return effect }
            return .send(g, .control(.resume(after: after + 1)))
        }
    }
}

/// Drops the messages that arrive while the connection is resubscribing (issue 31's
/// `drops-while-resubscribing`, as a wrapper).
struct DropsWhileResubscribing: MachineWrapper {
    var base: ConnectionMachine
    init(base: ConnectionMachine) { self.base = base }

    mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        if case .received(let g, _, _) = input, case .subscribing(g, _) = base.state { return [] }
        return base.handle(input, using: &random)
    }
}

/// Hands the app a replayed message it already has.
struct DeliversDuplicates: MachineWrapper {
    var base: ConnectionMachine
    init(base: ConnectionMachine) { self.base = base }

    mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        let last = base.lastSequence
        let effects = base.handle(input, using: &random)
        if case .received(_, let message, let sequence?) = input, let last, sequence <= last, effects.isEmpty {
            return [.deliverMessage(message, sequence: sequence)]
        }
        return effects
    }
}
