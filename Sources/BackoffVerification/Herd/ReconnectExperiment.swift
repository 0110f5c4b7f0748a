public import LiveConnection

/// An outage drops every connection at once; how do the clients come back?
///
/// ```swift
/// let outcome = ReconnectExperiment(connections: 1000, policy: .fullJitter(), seed: 1).run()
/// outcome.attemptsPerBin      // reconnect attempts reaching the server, per 100 ms
/// outcome.allReconnected      // when the last client was back
/// ```
///
/// At time 0 the server drops all `connections` and refuses connections until `outage`
/// has passed; afterwards it admits at most `capacity` handshakes per second (a token
/// bucket holding one second's worth), refusing the rest as overloaded — a server
/// recovering from a crash cannot take the whole fleet in one instant. Each client
/// reconnects the way the connection machine does: immediately after the drop (0
/// failures), then after its policy's delay following each failed attempt. Every message
/// takes a one-way latency from `latency`. Deterministic discrete-event simulation in
/// virtual time, like ``ContentionExperiment``.
public struct ReconnectExperiment: Sendable {
    /// The connections dropped at t = 0.
    public var connections: Int
    /// The backoff every client uses.
    public var policy: BackoffPolicy
    /// How long the server refuses every connection.
    public var outage: Duration
    /// Handshakes per second the server admits after the outage.
    public var capacity: Int
    /// The one-way network latency range (uniform).
    public var latency: ClosedRange<Duration>
    /// The width of the bins above.
    public var bin: Duration
    /// The seed of the network and of every client generator.
    public var seed: UInt64

    /// An experiment; `run()` performs it.
    public init(
        connections: Int, policy: BackoffPolicy, outage: Duration = .seconds(10), capacity: Int = 100,
        latency: ClosedRange<Duration> = .microseconds(4500)...Duration.microseconds(5500),
        bin: Duration = .milliseconds(500),
        seed: UInt64
    ) {
        precondition(connections > 0 && capacity > 0, "the experiment needs connections and a positive capacity")
        self.connections = connections
        self.policy = policy
        self.outage = outage
        self.capacity = capacity
        self.latency = latency
        self.bin = bin
        self.seed = seed
    }

    /// What one run measured.
    public struct Outcome: Sendable, Equatable {
        /// Connection attempts that reached the server, per `bin` of virtual time from the drop.
        public var attemptsPerBin: [Int]
        /// Successful reconnections per bin.
        public var reconnectsPerBin: [Int]
        /// The width of the bins above.
        public var bin: Duration
        /// Connection attempts that reached the server, in all.
        public var attempts: Int
        /// Attempts refused because the server was at capacity (after the outage).
        public var overloaded: Int
        /// When half of the clients were connected again.
        public var halfReconnected: Duration
        /// When 99 % were back.
        public var mostReconnected: Duration
        /// When the last client was back.
        public var allReconnected: Duration

        /// When the server came back.
        public var outage: Duration

        /// The highest attempt rate over one bin once the server is back, in attempts per second
        /// (before that every policy shows the same burst of immediate first retries).
        public var peakAttemptRate: Double {
            let first = Int(outage.nanoseconds / bin.nanoseconds)
            return Double(attemptsPerBin.dropFirst(first).max() ?? 0) / bin.seconds
        }
    }

    private enum Event {
        case attemptArrives(client: Int)
        case refused(client: Int)
        case connected(client: Int)
    }

    /// Runs the simulation until every client is connected again.
    public func run() -> Outcome {
        var seeds = SplitMix64(seed: seed)
        var network = Xoshiro256StarStar(seed: seeds.nextWord())
        var generators = (0..<connections).map { _ in Xoshiro256StarStar(seed: seeds.nextWord()) }
        var failures = Array(repeating: 0, count: connections)
        var previousDelay: [Duration?] = Array(repeating: nil, count: connections)
        var queue = EventQueue<Event>()
        var attemptsPerBin: [Int] = [], reconnectsPerBin: [Int] = []
        var attempts = 0, overloaded = 0
        var reconnectTimes: [Int64] = []
        let outageEnd = outage.nanoseconds
        let binLength = bin.nanoseconds
        // Token bucket: `capacity` tokens per second, at most `capacity` stored.
        var tokens = Double(capacity)
        var lastRefill = outageEnd
        func hop() -> Int64 { network.duration(in: latency).nanoseconds }
        func count(_ bins: inout [Int], at time: Int64) {
            let index = Int(time / binLength)
            if bins.count <= index { bins += Array(repeating: 0, count: index + 1 - bins.count) }
            bins[index] += 1
        }

        // The machine reconnects at once after a drop: 0 failures, 0 delay.
        for client in 0..<connections { queue.schedule(.attemptArrives(client: client), at: hop()) }
        while let (now, event) = queue.next() {
            switch event {
            case .attemptArrives(let client):
                attempts += 1
                count(&attemptsPerBin, at: now)
                var admitted = false
                if now >= outageEnd {
                    tokens = min(Double(capacity), tokens + Double(now - lastRefill) * 1e-9 * Double(capacity))
                    lastRefill = now
                    if tokens >= 1 {
                        tokens -= 1
                        admitted = true
                    } else {
                        overloaded += 1
                    }
                }
                queue.schedule(admitted ? .connected(client: client) : .refused(client: client), at: now + hop())
            case .refused(let client):
                failures[client] += 1
                let delay = policy.delay(
                    afterFailures: failures[client], previous: previousDelay[client], using: &generators[client])
                previousDelay[client] = delay
                queue.schedule(.attemptArrives(client: client), at: now + delay.nanoseconds + hop())
            case .connected:
                count(&reconnectsPerBin, at: now)
                reconnectTimes.append(now)
            }
        }
        reconnectsPerBin += Array(repeating: 0, count: max(0, attemptsPerBin.count - reconnectsPerBin.count))
        reconnectTimes.sort()
        func quantile(_ q: Double) -> Duration {
            .nanoseconds(
                reconnectTimes[min(reconnectTimes.count - 1, Int((Double(reconnectTimes.count) * q).rounded(.up)) - 1)])
        }
        return Outcome(
            attemptsPerBin: attemptsPerBin, reconnectsPerBin: reconnectsPerBin, bin: bin, attempts: attempts,
            overloaded: overloaded, halfReconnected: quantile(0.5), mostReconnected: quantile(0.99),
            allReconnected: quantile(1),
            outage: outage)
    }
}
