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
/// must report a gap). A restart forgets subscriptions and cursors and keeps the log, as a
/// server with a durable log does.
///
/// Frames are read as JSON (``ContractFrame/read(_:)``); a contract frame the server cannot
/// obey gets a ``Reply/refuse(_:)``, counted in ``refusedFrames``. What the contract records of
/// its clients is bounded whatever they send: the commands and the subscription log keep
/// their last ``recordCapacity`` entries (with totals, so a reader that follows them by
/// position knows what it missed), a command's text is kept whole up to
/// ``recordedTextLimit`` bytes and as its length and hash beyond, and a connection's state
/// is gone when it is dropped.
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
        /// A contract frame the server cannot obey: send the connection
        /// ``LiveContract/errorFrame(_:)`` with this reason (the connection stays open).
        case refuse(String)
    }

    /// The answer to an unreadable contract frame: `{"type":"error","reason":R}`. A text
    /// frame without `seq`, so a client takes it as a message of no topic, never as data.
    public static func errorFrame(_ reason: String) -> Message {
        .text(#"{"type":"error","reason":\#(reason.jsonQuoted)}"#)
    }

    /// Entries kept of the commands and of the subscription log.
    public static let recordCapacity = 1_000
    /// A command's text is kept whole up to this many bytes; a longer one as
    /// "<N bytes, fnv1a 0x…>" (equal texts still compare equal).
    public static let recordedTextLimit = 256

    /// How many entries the log keeps.
    public let logCapacity: Int
    /// The retained log, oldest first.
    public private(set) var log: [Entry] = []
    /// The last sequence number assigned.
    public private(set) var lastSequence: UInt64 = 0
    /// Topics per connection, in subscription order (connections are numbered from 1), and
    /// the same as a set: a subscribe costs the same with 50,000 topics as with one.
    private var subscriptions: [(connection: Int, topics: [String], known: Set<String>, cursor: UInt64?)] = []
    /// "connection:topic" for the last ``recordCapacity`` subscribe frames, in arrival order
    /// (seed 000's log).
    public private(set) var subscriptionLog = RecentRecords<String>(capacity: LiveContract.recordCapacity)
    /// The last ``recordCapacity`` command frames (frames that are not contract frames), with
    /// their connections.
    public private(set) var commands = RecentRecords<(connection: Int, text: String)>(
        capacity: LiveContract.recordCapacity)
    /// Contract frames refused as unreadable (answered with ``errorFrame(_:)``).
    public private(set) var refusedFrames = 0

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
        let frame: ContractFrame
        switch ContractFrame.read(text) {
        case .frame(let read): frame = read
        case .unreadable(let reason):
            refusedFrames += 1
            return .refuse(reason)
        case .command:
            commands.append((connection, Self.recorded(text)))
            return .none
        }
        switch frame {
        case .subscribe(let topic):
            subscriptionLog.append("\(connection):\(Self.recorded(topic))")
            let index = slot(for: connection)
            guard subscriptions[index].known.insert(topic).inserted else { return .none }
            subscriptions[index].topics.append(topic)
            guard let cursor = subscriptions[index].cursor else { return .none }
            let missed = log.filter { $0.sequence > cursor && $0.topic == topic }
            return missed.isEmpty ? .none : .replay(missed)
        case .unsubscribe(let topic):
            let index = slot(for: connection)
            guard subscriptions[index].known.remove(topic) != nil else { return .none }
            subscriptions[index].topics.removeAll { $0 == topic }
            return .none
        case .resume(let after):
            let index = slot(for: connection)
            subscriptions[index].cursor = after
            let topics = subscriptions[index].known
            return .replay(log.filter { $0.sequence > after && topics.contains($0.topic) })
        }
    }

    /// A client's text as the records keep it: whole when short, else its length and hash.
    static func recorded(_ text: String) -> String {
        let bytes = text.utf8
        guard bytes.count > recordedTextLimit else { return text }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return "<\(bytes.count) bytes, fnv1a 0x\(String(hash, radix: 16))>"
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
        for index in subscriptions.indices where subscriptions[index].known.contains(entry.topic) {
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
        subscriptions.append((connection, [], [], nil))
        return subscriptions.count - 1
    }
}
