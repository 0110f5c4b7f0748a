import Foundation
import LiveConnection

/// Encodes a ``ConnectionMachine`` into 59 bits and back, exactly, for the worlds the
/// connection model explores.
///
/// The machine's value holds strings (reasons, topics), arrays and a configuration; the
/// checker stores millions of them, so it keeps a packed code and decodes only to step.
/// Three abstractions make the code finite, each exact for what the machine does:
/// - Generations are renumbered: the last one minted is always 3 (the older one the
///   environment still plays late callbacks from is 2). The machine only ever compares
///   generations for equality with the live one, so the renumbered machine behaves the
///   same.
/// - `failures` saturates one past the count where the backoff distribution stops
///   changing (the refresh path draws with `failures − 1`, hence one past). Only the
///   "connecting attempt=N" report sees the difference. The attempt an open state
///   carries saturates at the same count, one higher ("open attempt=N").
/// - Delays are indices into the finite set of boundary draws the policy can produce.
///
/// Layout of the code (bit offsets): kind 0–3, reason 4–8, wanted 9, foreground 10,
/// endpoint 11–12, minted 13, failures 14–17, last delay 18–23, topics 24–31 (count +
/// three 2-bit entries), last sequence 32–34, commands in flight 35–42, refresh in
/// flight 43, flushes pending 44–46, has been open 47, the open state's attempt − 1 48–51,
/// the close frame of a waiting, refreshing or stopped state 52–54, path viable 55, and 56
/// for an open state's attempt below 1 (48–51 then hold −attempt): only a wrong machine
/// names one, and the code keeps it so the properties judge it instead of the encoder trapping;
/// the open state's app pings in flight 57–58 (how many times the model's one ping, p1, is
/// listed: a wrong machine may list it twice, and the code keeps that too).
struct MachineCodebook: Sendable {
    let configuration: ConnectionConfiguration
    let endpoints: [Endpoint]
    let topics: [String]
    /// Every reason a waiting, refreshing or stopped state can carry in this world.
    let reasons: [String]
    /// Every close frame such a state can carry in this world.
    let closes: [CloseFrame]
    /// Every delay a boundary draw can produce, in first-found order.
    let delays: [Duration]
    /// Where `failures` saturates.
    let failureCap: Int
    /// The generation number the live (or last) connection has in a decoded machine.
    static let current = Generation(3)
    /// The generation number of the older connection the environment plays late callbacks from.
    static let older = Generation(2)
    /// The one ping the model's app asks for.
    static let ping = PingID(1)

    enum Kind: UInt64 {
        case idle, connecting, subscribing, open, openAwaitingPong, waiting, refreshing, backgrounded, stopped, offline
    }

    init(configuration: ConnectionConfiguration, bounds: ConnectionBounds, reasons: [String], closes: [CloseFrame])
        throws(ConnectionModelError)
    {
        precondition(closes.count < 8, "\(closes.count) close frames do not fit the code's 3 bits")
        self.closes = closes
        self.configuration = configuration
        endpoints = ["wss://a.example/live", "wss://b.example/live"].prefix(bounds.endpoints).map { text in
            guard let url = URL(string: text) else { preconditionFailure("bad built-in endpoint \(text)") }
            return Endpoint(url: url)
        }
        topics = ["alpha", "beta", "gamma"].prefix(bounds.topics).map { $0 }
        self.reasons = reasons
        let policy = configuration.backoff
        // The distribution settles at some count K; store up to K + 1.
        var settled: Int?
        for k in 0...14 {
            let reference = policy.distribution(afterFailures: k, previous: nil)
            if (k...k + 16).allSatisfy({ policy.distribution(afterFailures: $0, previous: nil) == reference }) {
                settled = k
                break
            }
        }
        guard let settled else { throw .backoffNeverSaturates }
        failureCap = settled + 1
        for k in 0..<(settled + 1) {
            let lower = policy.distribution(afterFailures: k, previous: nil).bounds.upperBound
            let upper = policy.distribution(afterFailures: k + 1, previous: nil).bounds.upperBound
            if upper < lower { throw .backoffNotMonotone }
        }
        // Close the set of delays under boundary draws (decorrelated jitter feeds each
        // delay back in as `previous`).
        var delays: [Duration] = [.zero]
        var frontier: [Duration?] = [nil, .zero]
        while !frontier.isEmpty {
            var next: [Duration?] = []
            for previous in frontier {
                for failures in 0...failureCap {
                    for draw in BoundaryRandom.Draw.allCases {
                        var random = BoundaryRandom(draw)
                        let delay = policy.delay(afterFailures: failures, previous: previous, using: &random)
                        if !delays.contains(delay) {
                            delays.append(delay)
                            next.append(delay)
                            if delays.count > 60 { throw .tooManyDelays(delays.count) }
                        }
                    }
                }
            }
            frontier = next
        }
        self.delays = delays
    }

    // MARK: Decoding

    func decode(_ code: UInt64) -> ConnectionMachine {
        let reason = field(code, 4, 5) == 0 ? "" : reasons[Int(field(code, 4, 5)) - 1]
        let minted = field(code, 13, 1) == 1
        let generation = minted ? Self.current : Generation(0)
        let commands = list(field(code, 35, 8)).map { CommandID(UInt64($0 + 1)) }
        let attempt = field(code, 56, 1) == 1 ? -Int(field(code, 48, 4)) : Int(field(code, 48, 4)) + 1
        let close = field(code, 52, 3) == 0 ? nil : closes[Int(field(code, 52, 3)) - 1]
        let pings = Array(repeating: Self.ping, count: Int(field(code, 57, 2)))
        let state: ConnectionMachine.State
        switch Kind(rawValue: field(code, 0, 4)) {
        case .idle: state = .idle
        case .connecting: state = .connecting(generation)
        case .subscribing: state = .subscribing(generation, flushesPending: Int(field(code, 44, 3)))
        case .open:
            state = .open(
                generation,
                OpenConnection(attempt: attempt, awaitingPong: false, commandsInFlight: commands, pingsInFlight: pings))
        case .openAwaitingPong:
            state = .open(
                generation,
                OpenConnection(attempt: attempt, awaitingPong: true, commandsInFlight: commands, pingsInFlight: pings))
        case .waiting: state = .waiting(reason: reason, close: close)
        case .refreshing: state = .refreshing(reason: reason, close: close)
        case .backgrounded: state = .backgrounded
        case .offline: state = .offline
        case .stopped, nil: state = .stopped(reason: reason, close: close)
        }
        let endpoint = field(code, 11, 2)
        let delay = field(code, 18, 6)
        let sequence = field(code, 32, 3)
        return ConnectionMachine(
            configuration: configuration, state: state, wanted: field(code, 9, 1) == 1,
            foreground: field(code, 10, 1) == 1, pathViable: field(code, 55, 1) == 1,
            endpoint: endpoint == 0 ? nil : endpoints[Int(endpoint) - 1],
            generation: generation, failures: Int(field(code, 14, 4)),
            lastDelay: delay == 0 ? nil : delays[Int(delay) - 1],
            topics: list(field(code, 24, 8)).map { topics[$0] }, hasBeenOpen: field(code, 47, 1) == 1,
            lastSequence: sequence == 0 ? nil : sequence,
            refreshInFlight: field(code, 43, 1) == 1)
    }

    // MARK: Encoding

    /// The code of `machine`, whose generations must already be renumbered (live = 3).
    func encode(_ machine: ConnectionMachine) -> UInt64 {
        var code: UInt64 = 0
        var reason = ""
        var close: CloseFrame?
        let kind: Kind
        switch machine.state {
        case .idle: kind = .idle
        case .connecting: kind = .connecting
        case .subscribing: kind = .subscribing
        case .open(_, let connection):
            let (attempt, awaiting, pings) = (connection.attempt, connection.awaitingPong, connection.pingsInFlight)
            // The model's app asks for one ping, p1.
            precondition(
                pings.allSatisfy { $0 == Self.ping }, "app pings \(pings) in a model whose app asks for p1 only")
            code |= UInt64(min(pings.count, 3)) << 57
            kind = awaiting ? .openAwaitingPong : .open
            if attempt >= 1 {
                code |= UInt64(min(attempt - 1, failureCap)) << 48
            } else {
                code |= 1 << 56 | UInt64(min(-attempt, 15)) << 48
            }
        case .waiting(let why, let frame): kind = .waiting; reason = why; close = frame
        case .refreshing(let why, let frame): kind = .refreshing; reason = why; close = frame
        case .backgrounded: kind = .backgrounded
        case .offline: kind = .offline
        case .stopped(let why, let frame): kind = .stopped; reason = why; close = frame
        }
        code |= kind.rawValue
        if !reason.isEmpty {
            guard let index = reasons.firstIndex(of: reason) else {
                preconditionFailure("reason \"\(reason)\" of state \(machine.state) is not in the model's reason table")
            }
            code |= UInt64(index + 1) << 4
        }
        if let close {
            guard let index = closes.firstIndex(of: close) else {
                preconditionFailure("close \(close) of state \(machine.state) is not in the model's close table")
            }
            code |= UInt64(index + 1) << 52
        }
        if machine.wanted { code |= 1 << 9 }
        if machine.foreground { code |= 1 << 10 }
        if machine.pathViable { code |= 1 << 55 }
        if let endpoint = machine.endpoint {
            guard let index = endpoints.firstIndex(of: endpoint) else {
                preconditionFailure("unknown endpoint \(endpoint)")
            }
            code |= UInt64(index + 1) << 11
        }
        switch machine.generation {
        case 0: break
        case Self.current: code |= 1 << 13
        default: preconditionFailure("encoding generation \(machine.generation): renumber to \(Self.current) first")
        }
        code |= UInt64(min(machine.failures, failureCap)) << 14
        if let delay = machine.lastDelay {
            guard let index = delays.firstIndex(of: delay) else {
                preconditionFailure("delay \(delay) is not a boundary draw")
            }
            code |= UInt64(index + 1) << 18
        }
        code |=
            packList(
                machine.topics.map { topic in
                    guard let index = topics.firstIndex(of: topic) else {
                        preconditionFailure("unknown topic \(topic)")
                    }
                    return index
                }) << 24
        if let sequence = machine.lastSequence {
            precondition(sequence <= 7, "sequence \(sequence) beyond the model's server log")
            code |= sequence << 32
        }
        code |= packList(machine.commandsInFlight.map { Int($0.rawValue) - 1 }) << 35
        if machine.refreshInFlight { code |= 1 << 43 }
        precondition((0...7).contains(machine.flushesPending), "\(machine.flushesPending) flushes pending")
        code |= UInt64(machine.flushesPending) << 44
        if machine.hasBeenOpen { code |= 1 << 47 }
        return code
    }

    // MARK: Fields read by properties and the environment

    static func kind(_ code: UInt64) -> Kind { Kind(rawValue: code & 15) ?? .stopped }
    static func wanted(_ code: UInt64) -> Bool { code & (1 << 9) != 0 }
    static func foreground(_ code: UInt64) -> Bool { code & (1 << 10) != 0 }
    static func pathViable(_ code: UInt64) -> Bool { code & (1 << 55) != 0 }
    static func minted(_ code: UInt64) -> Bool { code & (1 << 13) != 0 }
    /// The subscribed topics as a bit set.
    static func topicSet(_ code: UInt64) -> UInt64 {
        let packed = (code >> 24) & 0xFF
        var set: UInt64 = 0
        for slot in 0..<Int(packed & 3) { set |= 1 << ((packed >> (2 + 2 * UInt64(slot))) & 3) }
        return set
    }
    static func topicCount(_ code: UInt64) -> Int { Int((code >> 24) & 3) }
    static func commandsInFlight(_ code: UInt64) -> Int { Int((code >> 35) & 3) }
    static func pingsInFlight(_ code: UInt64) -> Int { Int((code >> 57) & 3) }
    static func lastSequence(_ code: UInt64) -> UInt64 { (code >> 32) & 7 }

    private func field(_ code: UInt64, _ offset: UInt64, _ width: UInt64) -> UInt64 {
        (code >> offset) & ((1 << width) - 1)
    }

    private func list(_ packed: UInt64) -> [Int] {
        (0..<Int(packed & 3)).map { Int((packed >> (2 + 2 * UInt64($0))) & 3) }
    }

    private func packList(_ items: [Int]) -> UInt64 {
        precondition(items.count <= 3, "more than three items in a packed list")
        var packed = UInt64(items.count)
        for (slot, item) in items.enumerated() { packed |= UInt64(item) << (2 + 2 * UInt64(slot)) }
        return packed
    }
}
