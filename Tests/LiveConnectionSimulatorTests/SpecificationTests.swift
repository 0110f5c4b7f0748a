import LiveConnection
import LiveConnectionSimulator
import Testing

/// The judges' own statement of what is right, checked against numbers worked by hand
/// from the seed documents and the publications (never against the code's policies).
@Suite("The specification the judges hold the manager to")
struct SpecificationTests {
    let spec = Specification.seedDocuments

    @Test("seed 000: 1008, 4003 and HTTP 403 stop; 4001 and HTTP 401 refresh; nothing else does")
    func closeCodeClasses() {
        #expect(spec.isTerminal(close: 1008) && spec.isTerminal(close: 4003) && spec.isTerminal(handshakeStatus: 403))
        #expect(spec.refreshes(close: 4001) && spec.refreshes(handshakeStatus: 401))
        for code: CloseCode in [1000, 1001, 1006, 1011, 4000, 4001] {
            #expect(!spec.isTerminal(close: code), "\(code)")
        }
        for code: CloseCode in [1000, 1008, 4003] { #expect(!spec.refreshes(close: code), "\(code)") }
        #expect(!spec.isTerminal(handshakeStatus: 401) && !spec.isTerminal(handshakeStatus: 503))
    }

    @Test("full jitter after n failures: U(0, min(cap, base·2^(n−1)))")
    func fullJitter() {
        let policy = BackoffPolicy.fullJitter(base: .seconds(1), cap: .seconds(30))
        let expected: [Int64] = [0, 1, 2, 4, 8, 16, 30, 30]
        for (n, ceiling) in expected.enumerated() {
            #expect(
                spec.allowedDelay(policy, afterFailures: n, previous: .none) == .zero ... .seconds(ceiling), "n=\(n)")
        }
        let seed = BackoffPolicy.fullJitter(base: .milliseconds(100), cap: .seconds(2))
        #expect(spec.allowedDelay(seed, afterFailures: 5, previous: .none) == .zero ... .milliseconds(1600))
        #expect(spec.allowedDelay(seed, afterFailures: 6, previous: .none) == .zero ... .seconds(2))
        #expect(spec.allowedDelay(seed, afterFailures: 1_000, previous: .none) == .zero ... .seconds(2))
    }

    @Test("equal jitter c/2 + U(0, c/2), exponential c exactly")
    func equalAndExponential() {
        let equal = BackoffPolicy.equalJitter(base: .milliseconds(500), cap: .seconds(10))
        #expect(
            spec.allowedDelay(equal, afterFailures: 1, previous: .none) == .milliseconds(250) ... .milliseconds(500))
        #expect(spec.allowedDelay(equal, afterFailures: 3, previous: .none) == .seconds(1) ... .seconds(2))
        #expect(spec.allowedDelay(equal, afterFailures: 9, previous: .none) == .seconds(5) ... .seconds(10))
        let exponential = BackoffPolicy.exponential(base: .seconds(1), cap: .seconds(30))
        #expect(spec.allowedDelay(exponential, afterFailures: 4, previous: .none) == .seconds(8) ... .seconds(8))
    }

    @Test("decorrelated jitter min(cap, U(base, 3·sleep)), sleep starting at base")
    func decorrelated() {
        let policy = BackoffPolicy.decorrelatedJitter(base: .seconds(1), cap: .seconds(30))
        #expect(spec.allowedDelay(policy, afterFailures: 1, previous: .none) == .seconds(1) ... .seconds(3))
        #expect(
            spec.allowedDelay(policy, afterFailures: 2, previous: .known(.seconds(2))) == .seconds(1) ... .seconds(6))
        #expect(
            spec.allowedDelay(policy, afterFailures: 5, previous: .known(.seconds(20))) == .seconds(1) ... .seconds(30))
        #expect(spec.allowedDelay(policy, afterFailures: 5, previous: .unknown) == .seconds(1) ... .seconds(30))
    }

    @Test("±r jitter (gRPC): U(c(1−r), c(1+r)), c = min(max, initial·multiplier^(n−1)), to a microsecond")
    func proportional() {
        let policy = BackoffPolicy.proportionalJitter()  // 1 s, ×1.6, ±20 %, 120 s
        let second = spec.allowedDelay(policy, afterFailures: 2, previous: .none)  // c = 1.6 s
        #expect(abs(second.lowerBound - .milliseconds(1280)) <= .microseconds(1))
        #expect(abs(second.upperBound - .milliseconds(1920)) <= .microseconds(1))
        let capped = spec.allowedDelay(policy, afterFailures: 40, previous: .none)  // c = 120 s
        #expect(abs(capped.lowerBound - .seconds(96)) <= .microseconds(1))
        #expect(abs(capped.upperBound - .seconds(144)) <= .microseconds(1))
    }

    @Test("the second seed's table: 0, 1, 2, 4, 8, 16, 30, 30, 30 s")
    func table() {
        let policy = BackoffPolicy(.table(Specification.seedTable))
        let waits = (0..<9).map { spec.allowedDelay(policy, afterFailures: $0, previous: .none) }
        #expect(waits.map(\.lowerBound) == [0, 1, 2, 4, 8, 16, 30, 30, 30].map { .seconds($0) })
        #expect(waits.allSatisfy { $0.lowerBound == $0.upperBound })
    }

    @Test("the shipped defaults are the seed documents' (a unit-level second line behind explore and check)")
    func defaults() {
        let configuration = ConnectionConfiguration()
        #expect(configuration.terminalCloseCodes == Set(spec.terminalCloseCodes))
        #expect(configuration.terminalHandshakeStatuses == Set(spec.terminalHandshakeStatuses))
        #expect(configuration.refreshCloseCodes == Set(spec.refreshCloseCodes))
        #expect(configuration.refreshHandshakeStatuses == Set(spec.refreshHandshakeStatuses))
        #expect(BackoffPolicy.table() == BackoffPolicy(.table(Specification.seedTable)))
    }
}

private func abs(_ duration: Duration) -> Duration { duration < .zero ? .zero - duration : duration }
