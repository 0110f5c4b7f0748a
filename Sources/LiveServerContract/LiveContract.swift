public import LiveConnection

/// The live contract, the server's half of docs/server-contract.md: the message log,
/// subscriptions per connection, and what each client frame means. A value: no I/O, no time.
///
/// One type for both worlds: the simulated network (`SimulatedNetwork`) and the real test
/// server (`LiveTestServer`, `livesim serve`) hold one each and feed it the same frames, so
/// a scenario that passes against one has met the same contract in the other.
///
/// ```swift
/// var server = LiveContract(logCapacity: 100)
/// server.handle(.text(#"{"type":"subscribe","topic":"feed"}"#), from: 1)
/// let entry = server.append(topic: "feed", text: "hello")   // seq 1
/// server.recipients(of: entry)                               // [1]
/// server.handle(.text(#"{"type":"resume","after":0}"#), from: 1)  // .replay([entry])
/// ```
///
/// A resume request sets the connection's cursor and replays the log after it for the
/// topics it is subscribed to; a subscribe that arrives after a resume replays that
/// topic's entries after the cursor. Either order of subscribe and resume frames works,
/// but only resume-first is free of a race: a broadcast that lands between a subscribe
/// and the resume that follows it reaches the client before the replay does.
///
/// Sequence numbers are global and start at 1; the log keeps the last `logCapacity`
/// entries, so a resume from further back than that truly lost messages (and the client
/// must report a gap). A restart forgets subscriptions and keeps the log, as a server
/// with a durable log does.
public struct LiveContract: Sendable {
    /// One broadcast, as logged.
    public struct Entry: Hashable, Sendable {
        public var sequence: UInt64
        public var topic: String
        public var text: String

        public init(sequence: UInt64, topic: String, text: String) {
            self.sequence = sequence
            self.topic = topic
            self.text = text
        }

        /// The frame the client receives: `{"seq":N,"topic":T,"text":X}`.
        public var message: Message {
            .text(#"{"seq":\#(sequence),"topic":\#(topic.jsonQuoted),"text":\#(text.jsonQuoted)}"#)
        }
    }

    /// What a client frame asks of the server.
    public enum Reply: Equatable, Sendable {
        case none
        /// Send these entries to the connection, in order (a resume).
        case replay([Entry])
    }

    /// How many entries the log keeps.
    public let logCapacity: Int
    /// The retained log, oldest first.
    public private(set) var log: [Entry] = []
    /// The last sequence number assigned.
    public private(set) var lastSequence: UInt64 = 0
    /// Topics per connection, in subscription order (connections are numbered from 1).
    private var subscriptions: [(connection: Int, topics: [String], cursor: UInt64?)] = []
    /// "connection:topic" for every subscribe frame, in arrival order (seed 000's log).
    public private(set) var subscriptionLog: [String] = []
    /// Every command frame (a frame that is not a control frame), with its connection.
    public private(set) var commands: [(connection: Int, text: String)] = []

    public init(logCapacity: Int = 1_000) {
        precondition(logCapacity > 0, "a server log needs room for one entry")
        self.logCapacity = logCapacity
    }

    /// The oldest sequence number still in the log (everything before it is gone).
    public var oldestRetained: UInt64 { log.first?.sequence ?? lastSequence + 1 }

    /// Handles one client frame from `connection`.
    public mutating func handle(_ message: Message, from connection: Int) -> Reply {
        guard case .text(let text) = message else {
            commands.append((connection, "binary \(message.data.count) bytes"))
            return .none
        }
        switch ContractFrame(text) {
        case .subscribe(let topic):
            subscriptionLog.append("\(connection):\(topic)")
            let index = slot(for: connection)
            guard !subscriptions[index].topics.contains(topic) else { return .none }
            subscriptions[index].topics.append(topic)
            guard let cursor = subscriptions[index].cursor else { return .none }
            let missed = log.filter { $0.sequence > cursor && $0.topic == topic }
            return missed.isEmpty ? .none : .replay(missed)
        case .unsubscribe(let topic):
            let index = slot(for: connection)
            subscriptions[index].topics.removeAll { $0 == topic }
            return .none
        case .resume(let after):
            let index = slot(for: connection)
            subscriptions[index].cursor = after
            let topics = subscriptions[index].topics
            return .replay(log.filter { $0.sequence > after && topics.contains($0.topic) })
        case nil:
            commands.append((connection, text))
            return .none
        }
    }

    /// Logs a broadcast and returns it (evicting the oldest entry when full).
    public mutating func append(topic: String, text: String) -> Entry {
        lastSequence += 1
        let entry = Entry(sequence: lastSequence, topic: topic, text: text)
        log.append(entry)
        if log.count > logCapacity { log.removeFirst(log.count - logCapacity) }
        return entry
    }

    /// The connections subscribed to the entry's topic, in subscription order; their
    /// cursors move past it.
    public mutating func recipients(of entry: Entry) -> [Int] {
        var result: [Int] = []
        for index in subscriptions.indices where subscriptions[index].topics.contains(entry.topic) {
            result.append(subscriptions[index].connection)
            if subscriptions[index].cursor != nil { subscriptions[index].cursor = entry.sequence }
        }
        return result
    }

    /// The topics `connection` is subscribed to.
    public func topics(of connection: Int) -> [String] {
        subscriptions.first { $0.connection == connection }?.topics ?? []
    }

    /// The connection is gone: forget its subscriptions.
    public mutating func drop(_ connection: Int) {
        subscriptions.removeAll { $0.connection == connection }
    }

    /// A restart: every subscription forgotten, the log kept.
    public mutating func restart() {
        subscriptions = []
    }

    private mutating func slot(for connection: Int) -> Int {
        if let index = subscriptions.firstIndex(where: { $0.connection == connection }) { return index }
        subscriptions.append((connection, [], nil))
        return subscriptions.count - 1
    }
}

/// The three contract frames of `SubscriptionProtocol.json`, recognised without a JSON parser.
public enum ContractFrame: Equatable, Sendable {
    case subscribe(String)
    case unsubscribe(String)
    case resume(UInt64)

    public init?(_ text: String) {
        // The manager spells these exactly so (SubscriptionProtocol.json); anything else
        // is an application command.
        if let topic = Self.string(after: #"{"type":"subscribe","topic":"#, in: text) {
            self = .subscribe(topic)
        } else if let topic = Self.string(after: #"{"type":"unsubscribe","topic":"#, in: text) {
            self = .unsubscribe(topic)
        } else if text.hasPrefix(#"{"type":"resume","after":"#), text.hasSuffix("}"),
            let after = UInt64(text.dropFirst(#"{"type":"resume","after":"#.count).dropLast())
        {
            self = .resume(after)
        } else {
            return nil
        }
    }

    /// The JSON string literal between `prefix` and the closing `}`, unescaped.
    private static func string(after prefix: String, in text: String) -> String? {
        guard text.hasPrefix(prefix), text.hasSuffix("\"}") else { return nil }
        let literal = text.dropFirst(prefix.count + 1).dropLast(2)
        var out = ""
        var escaping = false
        for character in literal {
            if escaping {
                switch character {
                case "n": out.append("\n")
                case "r": out.append("\r")
                case "t": out.append("\t")
                default: out.append(character)
                }
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                out.append(character)
            }
        }
        return out
    }
}
