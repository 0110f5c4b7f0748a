import Foundation
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
/// recovering from a crash cannot take the whole fleet in one instant. Each client is a
/// `ConnectionMachine` with the policy under test, driven by this experiment as its shell,
/// so it backs off exactly as the manager does (the drop counts as a failure: the first
/// reconnect already waits one delay). Every message takes a one-way latency from
/// `latency`. Deterministic discrete-event simulation in virtual time, like
/// ``ContentionExperiment``.
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
        /// Client `client`'s attempt (generation `g`) reaches the server.
        case attemptArrives(client: Int, Generation)
        /// The server's answer reaches the client: `.opened` or `.connectFailed`.
        case answer(client: Int, Input)
        /// A timer the client's machine armed comes due (dropped if re-armed or cancelled since).
        case timer(client: Int, TimerID, token: UInt64)
    }

    /// One client: its own connection machine and backoff generator, and the timers it armed.
    private struct Client {
        var machine: ConnectionMachine
        var random: Xoshiro256StarStar
        var armed: [TimerID: UInt64] = [:]
        var reconnected = false

        mutating func handle(_ input: Input) -> [Effect] { machine.handle(input, using: &random) }
    }

    /// Runs the simulation until every client is connected again.
    ///
    /// Every client is a `ConnectionMachine` with this experiment's policy, so the herd
    /// retries exactly as the manager does: the drop is a failure, so even the first
    /// reconnect waits the policy's delay after one failure. The experiment is the
    /// machine's shell: it turns `openConnection` into an attempt that reaches the server
    /// one latency later and an answer one latency after that, answers `flush` at once,
    /// runs the timers the machine arms, and counts a client back when it reports `open`
    /// (it is not followed further).
    public func run() -> Outcome {
        var seeds = SplitMix64(seed: seed)
        var network = Xoshiro256StarStar(seed: seeds.nextWord())
        var configuration = ConnectionConfiguration()
        configuration.backoff = policy
        var clients = (0..<connections).map { _ in
            Client(
                machine: ConnectionMachine(configuration: configuration),
                random: Xoshiro256StarStar(seed: seeds.nextWord()))
        }
        var queue = EventQueue<Event>()
        var nextToken: UInt64 = 0
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
        /// Does what client `index`'s machine asked for, at `now`; returns the inputs to feed back at once.
        func perform(_ effects: [Effect], client index: Int, at now: Int64) -> [Input] {
            var immediate: [Input] = []
            for effect in effects {
                switch effect {
                case .openConnection(let g, _): queue.schedule(.attemptArrives(client: index, g), at: now + hop())
                case .flush(let g): immediate.append(.flushed(g))
                case .startTimer(let timer, let delay):
                    nextToken += 1
                    clients[index].armed[timer] = nextToken
                    queue.schedule(.timer(client: index, timer, token: nextToken), at: now + delay.nanoseconds)
                case .cancelTimer(let timer): clients[index].armed[timer] = nil
                case .report(.open):
                    clients[index].reconnected = true
                    count(&reconnectsPerBin, at: now)
                    reconnectTimes.append(now)
                default: continue  // frames, pings, phases other than open: not the herd's concern
                }
            }
            return immediate
        }
        func feed(_ input: Input, client index: Int, at now: Int64) {
            var pending = [input]
            while !pending.isEmpty, !clients[index].reconnected {
                let next = pending.removeFirst()
                let effects = clients[index].handle(next)
                pending += perform(effects, client: index, at: now)
            }
        }

        // Before t = 0 every client is open (handshake and flush answered at once), then
        // the outage drops every connection: a reset the machine counts as a failure.
        let endpoint = Endpoint(url: URL(string: "wss://herd.example/live")!)
        for index in 0..<connections {
            var live: Generation?
            var pending = [Input.connect(endpoint)]
            while !pending.isEmpty {
                for effect in clients[index].handle(pending.removeFirst()) {
                    switch effect {
                    case .openConnection(let g, _):
                        live = g
                        pending.append(.opened(g))
                    case .flush(let g): pending.append(.flushed(g))
                    default: continue  // setup timers are cancelled by the drop below
                    }
                }
            }
            guard let live else { preconditionFailure("a client's machine never opened a connection") }
            clients[index].armed = [:]
            feed(.failed(live, .reset(errno: "ECONNRESET")), client: index, at: 0)
        }
        while let (now, event) = queue.next() {
            switch event {
            case .attemptArrives(let index, let g):
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
                let answer: Input = admitted ? .opened(g) : .connectFailed(g, .refused)
                queue.schedule(.answer(client: index, answer), at: now + hop())
            case .answer(let index, let input):
                feed(input, client: index, at: now)
            case .timer(let index, let timer, let token):
                guard !clients[index].reconnected, clients[index].armed[timer] == token else { continue }
                clients[index].armed[timer] = nil
                feed(.timerFired(timer), client: index, at: now)
            }
        }
        precondition(
            reconnectTimes.count == connections, "\(connections - reconnectTimes.count) clients never came back")
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
