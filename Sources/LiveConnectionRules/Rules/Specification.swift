public import LiveConnection

/// What the judges hold a connection manager to, written from the seed documents and the
/// published backoff formulas, never from the code under judgement.
///
/// ```swift
/// let spec = Specification.seedDocuments
/// spec.isTerminal(close: 4003)                                      // true: stop
/// spec.refreshes(close: 4001)                                        // true: refresh, then reconnect
/// spec.allowedDelay(.fullJitter(base: .seconds(1), cap: .seconds(30)), afterFailures: 3, previous: .none)
///                                                                    // 0 s ... 4 s
/// ```
///
/// A judge that reads the same default or calls the same formula as the implementation
/// cannot catch a wrong default or formula: the code and its oracle change together, and
/// the run stays green. So the constants here are numbers from the seed documents
/// (docs/invariants.md names them), and every backoff formula is written out again from
/// its publication. The manager's configuration is used only to pick *which* formula
/// applies (the policy's name and its parameters: base, cap, the table's entries), never
/// to compute the expected answer: nothing here calls `BackoffPolicy.distribution`,
/// `delay`, `maximumDelay` or reads a configuration's close-code sets.
///
/// The close-code classes are stored values, so the owner of a different protocol states
/// its own (a `Specification` is a claim about the server, independent of the client's
/// configuration); ``seedDocuments`` is the one every run of this project is judged by.
public struct Specification: Hashable, Sendable {
    /// Close codes after which the manager stops until `connect(to:)`.
    public var terminalCloseCodes: [CloseCode]
    /// Handshake statuses after which the manager stops until `connect(to:)`.
    public var terminalHandshakeStatuses: [Int]
    /// Close codes that mean "credentials expired": refresh them, then reconnect.
    public var refreshCloseCodes: [CloseCode]
    /// Handshake statuses that mean the same.
    public var refreshHandshakeStatuses: [Int]

    /// The close frame `disconnect()` sends, as its documentation states: 1000 "disconnected".
    public static let plainDisconnectClose = CloseFrame(code: .normal, reason: "disconnected")

    public init(
        terminalCloseCodes: [CloseCode], terminalHandshakeStatuses: [Int], refreshCloseCodes: [CloseCode],
        refreshHandshakeStatuses: [Int]
    ) {
        self.terminalCloseCodes = terminalCloseCodes
        self.terminalHandshakeStatuses = terminalHandshakeStatuses
        self.refreshCloseCodes = refreshCloseCodes
        self.refreshHandshakeStatuses = refreshHandshakeStatuses
    }

    /// Seed 000: 1008 (policy violation), 4003 (forbidden) and HTTP 403 stop; 4001 (token
    /// expired) and HTTP 401 refresh the credentials, then reconnect.
    public static let seedDocuments = Specification(
        terminalCloseCodes: [CloseCode(rawValue: 1008), CloseCode(rawValue: 4003)], terminalHandshakeStatuses: [403],
        refreshCloseCodes: [CloseCode(rawValue: 4001)], refreshHandshakeStatuses: [401])

    /// The fixed table of the other seed: 1 s doubling to a 30 s cap, forever
    /// (0, 1, 2, 4, 8, 16, 30, 30, 30 s; the last entry repeats).
    public static let seedTable: [Duration] = [0, 1, 2, 4, 8, 16, 30].map { .seconds($0) }

    public func isTerminal(close code: CloseCode) -> Bool { terminalCloseCodes.contains(code) }
    public func isTerminal(handshakeStatus status: Int) -> Bool { terminalHandshakeStatuses.contains(status) }
    public func refreshes(close code: CloseCode) -> Bool { refreshCloseCodes.contains(code) }
    public func refreshes(handshakeStatus status: Int) -> Bool { refreshHandshakeStatuses.contains(status) }

    /// The heartbeat's promise: a peer that dies is declared dead within P + T.
    public func deadPeerBound(heartbeatInterval p: Duration, heartbeatTimeout t: Duration) -> Duration { p + t }
}

// MARK: Backoff, from the publications

extension Specification {
    /// What the judge knows of the delay drawn before this one (decorrelated jitter
    /// grows from it; no other policy remembers).
    public enum PreviousDelay: Hashable, Sendable {
        /// No delay since the count started again: the formula starts from `base`.
        case none
        /// This one.
        case known(Duration)
        /// Anything the policy could have drawn (the model checker does not track it).
        case unknown
    }

    /// Every delay the named policy may draw after `n` consecutive failures.
    ///
    /// With c_n = min(cap, base·2^(n−1)) (AWS, "Exponential Backoff and Jitter", 2015):
    /// full jitter U(0, c_n); equal jitter c_n/2 + U(0, c_n/2); exponential exactly c_n;
    /// decorrelated jitter min(cap, U(base, 3·sleep)), sleep starting at base; ±r jitter
    /// (gRPC) U(c_n(1−r), c_n(1+r)) with c_n = min(maximum, initial·multiplier^(n−1));
    /// a table's n-th entry, the last one repeating. After 0 failures (the first attempt)
    /// every policy waits 0, except a table, whose entry 0 is that wait.
    public func allowedDelay(_ policy: BackoffPolicy, afterFailures n: Int, previous: PreviousDelay)
        -> ClosedRange<Duration>
    {
        let n = max(0, n)
        if case .table(let entries) = policy.kind {
            let entry = entries.isEmpty ? .zero : entries[min(n, entries.count - 1)]
            return entry...entry
        }
        if n == 0 { return .zero ... .zero }
        switch policy.kind {
        case .fullJitter(let base, let cap):
            return .zero...Self.doubling(base, cap: cap, failures: n)
        case .equalJitter(let base, let cap):
            let c = Self.doubling(base, cap: cap, failures: n)
            return .nanoseconds(c.nanoseconds / 2)...c
        case .exponential(let base, let cap):
            let c = Self.doubling(base, cap: cap, failures: n)
            return c...c
        case .decorrelatedJitter(let base, let cap):
            let low = min(base, cap)
            switch previous {
            case .unknown:
                return low...max(low, cap)
            case .none, .known:
                var sleep = base
                if case .known(let value) = previous { sleep = max(value, base) }
                let (tripled, overflow) = sleep.nanoseconds.multipliedReportingOverflow(by: 3)
                let high = min(cap, overflow ? cap : .nanoseconds(tripled))
                return low...max(low, high)
            }
        case .proportionalJitter(let initial, let multiplier, let jitter, let maximum):
            // Doubles, as gRPC states it: widened by a microsecond either side for rounding.
            let c = Self.proportionalCeiling(initial: initial, multiplier: multiplier, maximum: maximum, failures: n)
            let slack = 1_000.0
            return .nanoseconds(
                Int64(max(0, c * (1 - jitter) - slack)))...Duration.nanoseconds(
                    Int64(c * (1 + jitter) + slack))
        case .table:
            preconditionFailure("handled above")
        }
    }

    /// The longest any wait of the named policy can be (the liveness bound waits this long).
    public func maximumDelay(_ policy: BackoffPolicy) -> Duration {
        switch policy.kind {
        case .fullJitter(_, let cap), .equalJitter(_, let cap), .exponential(_, let cap): cap
        case .decorrelatedJitter(let base, let cap): max(min(base, cap), cap)
        case .proportionalJitter:
            allowedDelay(policy, afterFailures: 64, previous: .none).upperBound
        case .table(let entries): entries.max() ?? .zero
        }
    }

    /// A delay's range whatever the previous delay was, and its smallest mean (in seconds):
    /// what the attempt-rate bound (`no-hot-loop`) sums over the retries of a minute.
    public struct Envelope: Hashable, Sendable {
        public var range: ClosedRange<Duration>
        public var meanSeconds: Double
    }

    /// The envelope after `n` failures: every published delay is uniform on its range (or
    /// constant), so its mean is the midpoint, except decorrelated jitter, whose draw is
    /// clamped at the cap; its range is as wide as any previous delay makes it, and its
    /// smallest mean is the one after the smallest previous delay (base).
    public func envelope(_ policy: BackoffPolicy, afterFailures n: Int) -> Envelope {
        let range = allowedDelay(policy, afterFailures: n, previous: .unknown)
        guard case .decorrelatedJitter(let base, let cap) = policy.kind, n > 0 else {
            return Envelope(
                range: range, meanSeconds: (Self.seconds(range.lowerBound) + Self.seconds(range.upperBound)) / 2)
        }
        // min(cap, U(b, 3b)): the part of the uniform above the cap is drawn as the cap.
        let b = Self.seconds(base), limit = max(b, Self.seconds(cap)), top = 3 * b
        let mean = top <= limit ? (b + top) / 2 : ((limit - b) * (b + limit) / 2 + (top - limit) * limit) / (top - b)
        return Envelope(range: range, meanSeconds: mean)
    }

    /// min(cap, base·2^(n−1)) in integer nanoseconds, saturating.
    static func doubling(_ base: Duration, cap: Duration, failures n: Int) -> Duration {
        // `Duration.components` divides 128-bit numbers: read the cap once, not per step
        // (the wire judge asks for thousands of delays per failing run).
        let ceiling = cap.nanoseconds
        var value = base.nanoseconds
        var exponent = 0
        while exponent < n - 1 && value < ceiling {
            let (doubled, overflow) = value.multipliedReportingOverflow(by: 2)
            value = overflow ? .max : doubled
            exponent += 1
        }
        return .nanoseconds(min(value, ceiling))
    }

    static func seconds(_ duration: Duration) -> Double { Double(duration.nanoseconds) / 1e9 }
}
