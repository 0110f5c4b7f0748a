import LiveConnection
import LiveConnectionSimulator
import TestScheduling
import Testing

@testable import LiveConnectionChecker

@Suite("The connection model", .computeBound)
struct ConnectionModelTests {
    /// The smallest world with every kind of input the machine hears (its ping and path
    /// reports included): 536,712 states, the one exhaustive check of the shipped machine in
    /// the test suite. A debug run (``TestScale/shippedMachineEndpoints``) drops the second endpoint, and with it
    /// a `connect(to:)` that moves a live connection elsewhere (the release suite keeps it,
    /// and so do the planted variants' worlds below, where `leaks-sockets` and
    /// `keeps-first-endpoint` need it): 268,380 states, half the time.
    static var small: ConnectionBounds {
        var bounds = ConnectionBounds()
        bounds.topics = 0
        bounds.commands = 0
        bounds.serverLog = 0
        bounds.endpoints = TestScale.shippedMachineEndpoints.count
        return bounds
    }

    @Test("the shipped machine passes every property, and the space is exhausted")
    func shippedMachinePasses() throws {
        // Every behaviour in CI's release step, every one of up to 12 steps in a debug run
        // (``TestScale/shippedMachineDepth``).
        var options = CheckOptions()
        options.maxDepth = TestScale.shippedMachineDepth.current
        let result = try ConnectionModel(bounds: Self.small).check(options)
        #expect(
            result.passed,
            "\(String(describing: result.violation?.property)): \(String(describing: result.violation?.message))")
        #expect(result.statistics.exhausted)
        #expect(result.statistics.depthBoundHit == !TestScale.shippedMachineDepth.isAll)
        #expect(result.statistics.distinctStates > 10_000)
    }

    @Test("bounds stop the search and say so")
    func boundsStopTheSearch() throws {
        let model = try ConnectionModel(bounds: Self.small)
        var options = CheckOptions()
        options.maxStates = 500
        options.checkEventually = false
        let capped = model.check(options).statistics
        #expect(!capped.exhausted)
        #expect(capped.distinctStates == 500)
        options = CheckOptions()
        options.maxDepth = 3
        let shallow = model.check(options).statistics
        #expect(shallow.depthReached == 3)
        #expect(shallow.depthBoundHit)
    }

    @Test("every machine code decodes and re-encodes to itself along a long walk")
    func codebookRoundTrips() throws {
        let model = try ConnectionModel()
        var state = try #require(model.initialStates.first)
        var random = SplitMix64(seed: 7)
        var seen = Set<UInt64>()
        for _ in 0..<1_000 {
            let machine = model.codebook.decode(state.machine)
            #expect(model.codebook.encode(machine) == state.machine)
            seen.insert(state.machine)
            let actions = model.actions(in: state)
            guard !actions.isEmpty else { break }
            let action = actions[Int(random.uniform(below: UInt64(actions.count)))]
            let successors = model.next(action, after: state)
            state = successors[Int(random.uniform(below: UInt64(successors.count)))]
        }
        #expect(seen.count > 100)
    }

    @Test("late callbacks are offered only once a generation died; those that change nothing are self-loops")
    func lateCallbacksNeedADeadGeneration() throws {
        let model = try ConnectionModel()
        let initial = try #require(model.initialStates.first)
        #expect(!model.actions(in: initial).contains { if case .late = $0 { true } else { false } })
        let endpoint = model.codebook.endpoints[0]
        let connecting = try #require(model.next(.input(.connect(endpoint)), after: initial).first)
        let failed = try #require(
            model.next(.input(.connectFailed(3, .handshakeRejected(status: 503))), after: connecting).first)
        let late = model.actions(in: failed).filter { if case .late = $0 { true } else { false } }
        // Only a late open does something (the machine closes the socket); the other late
        // inputs were checked to change nothing when their step was computed, and are
        // skipped as the self-loops they are.
        #expect(late == [.late(.opened(3))])
        let closed = model.next(.late(.opened(3)), after: failed)
        #expect(closed == [failed])
    }

    @Test("a retry draw branches three ways, to the policy's bounds and between them")
    func drawsBranchToBoundaries() throws {
        let model = try ConnectionModel()
        let initial = try #require(model.initialStates.first)
        let connecting = try #require(model.next(.input(.connect(model.codebook.endpoints[0])), after: initial).first)
        let waits = model.next(.input(.connectFailed(3, .handshakeRejected(status: 503))), after: connecting)
        #expect(waits.count == 3)
        let delays = waits.compactMap { model.machine(of: $0).lastDelay }
        // Full jitter after one failure: U[0, 1 s].
        #expect(delays == [.zero, .nanoseconds(500_000_000), .seconds(1)])
    }
}
