import typealias LiveConnection.Mutex

/// A connection whose buffers a ``BufferBudget`` counts, and which it may drop: a
/// ``ServerConnection``, or a ``WebSocketProxy`` connection.
package protocol BudgetHolder: AnyObject, Sendable {
    var id: UInt64 { get }
    /// Ends the connection with a TCP reset, recording why.
    func reset(because reason: String)
}

/// What a ``WebSocketServer`` (or a ``WebSocketProxy``) holds for all its connections together, against one limit.
///
/// ```swift
/// let budget = BufferBudget(limit: 256 << 20)
/// budget.register(connection)
/// let victims = budget.adjust(connection.id, outgoing: +4096)   // largest holders first
/// budget.drop(victims)                                          // each reset, counted
/// ```
///
/// A connection holds its queued outgoing payload bytes (the ``Outbox``) and what its reader
/// keeps of frames and messages not yet complete. Per-connection limits alone add up (60
/// clients that do not read, each at its 16 MiB queue limit, held 1 GB): once the sum passes
/// the limit, the connections holding the most are dropped, one after another, until it is
/// back under; below the limit nobody is touched. A dropped connection's holding leaves the
/// tally at once, so the same bytes never condemn a second connection while its tasks wind down.
package final class BufferBudget: Sendable {
    private struct Holding {
        let connection: any BudgetHolder
        var outgoing = 0
        var incoming = 0
        var total: Int { outgoing + incoming }
    }

    private struct State {
        /// Registered, not dropped: only these count.
        var holdings: [UInt64: Holding] = [:]
        var total = 0
        var budgetDrops = 0
        var slowReaderResets = 0
    }

    private let state = Mutex(State())
    /// Bytes held across every connection before the largest holders are dropped.
    let limit: Int

    package init(limit: Int) { self.limit = limit }

    /// Bytes held now across every connection.
    package var heldBytes: Int { state.withLock { $0.total } }

    /// Connections dropped for holding the most while the server was over its limit.
    package var budgetDrops: Int { state.withLock { $0.budgetDrops } }

    /// Connections reset because they did not read what was queued for them.
    var slowReaderResets: Int { state.withLock { $0.slowReaderResets } }

    package func register(_ connection: some BudgetHolder) {
        state.withLock { $0.holdings[connection.id] = Holding(connection: connection) }
    }

    /// Forgets a connection that ended (what it still held is no longer the server's).
    package func unregister(_ id: UInt64) {
        state.withLock { state in
            if let holding = state.holdings.removeValue(forKey: id) { state.total -= holding.total }
        }
    }

    /// Changes a connection's queued outgoing bytes by `delta`; returns the connections to
    /// drop (largest first) if the server is now over its limit. A leaf lock: the ``Outbox``
    /// calls it while holding its own, so the tally follows the queue's order exactly.
    package func adjust(_ id: UInt64, outgoing delta: Int) -> [any BudgetHolder] {
        state.withLock { state in
            // Dropped or ended already: its bytes left the tally when it was dropped.
            guard state.holdings[id] != nil else { return [] }
            state.holdings[id]!.outgoing += delta
            state.total += delta
            return Self.victims(&state, limit: limit)
        }
    }

    /// Sets what a connection's reader holds of incoming frames and unfinished messages.
    package func setIncoming(_ id: UInt64, _ bytes: Int) -> [any BudgetHolder] {
        state.withLock { state in
            guard let before = state.holdings[id]?.incoming else { return [] }
            state.holdings[id]!.incoming = bytes
            state.total += bytes - before
            return Self.victims(&state, limit: limit)
        }
    }

    /// Counts a reset for not reading (the connection's own queue limit, not the server's budget).
    func noteSlowReader() { state.withLock { $0.slowReaderResets += 1 } }

    /// Resets the connections ``adjust(_:outgoing:)`` or ``setIncoming(_:_:)`` chose.
    package func drop(_ victims: [any BudgetHolder]) {
        for victim in victims {
            victim.reset(
                because: "dropped: more than the \(limit)-byte buffer budget was held, this connection holding the most"
            )
        }
    }

    /// Over the limit: takes the largest holders out of the tally until it is back under.
    private static func victims(_ state: inout State, limit: Int) -> [any BudgetHolder] {
        guard state.total > limit else { return [] }
        var victims: [any BudgetHolder] = []
        let largestFirst = state.holdings.values.sorted { ($0.total, $1.connection.id) > ($1.total, $0.connection.id) }
        for holding in largestFirst {
            guard state.total > limit else { break }
            state.holdings[holding.connection.id] = nil
            state.total -= holding.total
            state.budgetDrops += 1
            victims.append(holding.connection)
        }
        return victims
    }
}
