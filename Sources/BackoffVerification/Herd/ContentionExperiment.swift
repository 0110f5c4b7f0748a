public import LiveConnection

/// The AWS Architecture Blog's "Exponential Backoff and Jitter" (2015) experiment:
/// N clients each make one optimistic-concurrency write to the same record.
///
/// ```swift
/// let outcome = ContentionExperiment(clients: 100, policy: .fullJitter(base: .milliseconds(5), cap: .seconds(2)), seed: 1).run()
/// outcome.calls        // conditional writes sent by all clients together
/// outcome.completion   // virtual time until the last client succeeded
/// ```
///
/// Each attempt reads the record's version, then sends a write conditional on that
/// version; the write succeeds only if nobody else wrote in between. A failed client
/// backs off (its policy's delay after its number of failures) and tries again. Every
/// message takes a one-way network latency drawn from `latency` (about 5 ms each way,
/// the blog's ~10 ms round trip). The run is a discrete-event simulation in virtual time:
/// an ``EventQueue`` keyed by (time, sequence), one seeded generator per client for the
/// backoff draws and one for the network, so a seed reproduces the run exactly.
public struct ContentionExperiment: Sendable {
    /// N, the contending clients.
    public var clients: Int
    /// The backoff every client uses.
    public var policy: BackoffPolicy
    /// The one-way network latency range (uniform).
    public var latency: ClosedRange<Duration>
    /// The seed of the network and of every client generator.
    public var seed: UInt64

    /// An experiment; `run()` performs it.
    public init(
        clients: Int, policy: BackoffPolicy,
        latency: ClosedRange<Duration> = .microseconds(4500)...Duration.microseconds(5500),
        seed: UInt64
    ) {
        precondition(clients > 0, "the experiment needs at least one client")
        self.clients = clients
        self.policy = policy
        self.latency = latency
        self.seed = seed
    }

    /// What one run measured.
    public struct Outcome: Sendable, Equatable {
        /// Conditional writes sent (each attempt is one read and one write).
        public var calls: Int
        /// Time from the start until the last client's write succeeded.
        public var completion: Duration
        /// The most attempts any single client needed.
        public var maximumAttempts: Int
    }

    private enum Event {
        case readArrives(client: Int)
        case writeArrives(client: Int, version: Int)
        case succeeded(client: Int)
    }

    /// Runs the simulation to the last successful write.
    public func run() -> Outcome {
        var seeds = SplitMix64(seed: seed)
        var network = Xoshiro256StarStar(seed: seeds.nextWord())
        var generators = (0..<clients).map { _ in Xoshiro256StarStar(seed: seeds.nextWord()) }
        var failures = Array(repeating: 0, count: clients)
        var previousDelay: [Duration?] = Array(repeating: nil, count: clients)
        var queue = EventQueue<Event>()
        var version = 0
        var calls = 0
        var completion: Int64 = 0
        func hop() -> Int64 { network.duration(in: latency).nanoseconds }

        for client in 0..<clients { queue.schedule(.readArrives(client: client), at: hop()) }
        while let (now, event) = queue.next() {
            switch event {
            case .readArrives(let client):
                // The read returns the version; the client sends its conditional write.
                queue.schedule(.writeArrives(client: client, version: version), at: now + hop() + hop())
            case .writeArrives(let client, let readVersion):
                calls += 1
                if readVersion == version {
                    version += 1
                    queue.schedule(.succeeded(client: client), at: now + hop())
                } else {
                    failures[client] += 1
                    let delay = policy.delay(
                        afterFailures: failures[client], previous: previousDelay[client], using: &generators[client])
                    previousDelay[client] = delay
                    queue.schedule(.readArrives(client: client), at: now + hop() + delay.nanoseconds + hop())
                }
            case .succeeded:
                completion = max(completion, now)
            }
        }
        return Outcome(calls: calls, completion: .nanoseconds(completion), maximumAttempts: (failures.max() ?? 0) + 1)
    }
}
