/// One generation's pings written and not yet answered, in the order they were sent: which
/// machine input each pong becomes.
///
/// ```swift
/// var pings = SentPings()
/// let first = pings.record(.heartbeat)        // 1: written by the orders loop
/// let second = pings.record(.app(PingID(7)))  // 2
/// pings.answer(upTo: second)                  // [.heartbeat, .app(PingID(7))]
/// pings.answer(upTo: first)                   // []: answered already, so not ours any more
/// ```
///
/// Why in order: the transport returns a ping once written and reports its pong from the
/// receive loop (``TransportEvent/pong(_:)``). A peer answers frames in order, and RFC 6455
/// §5.5.3 lets it answer only the latest of several pings, so a pong answers its own ping and
/// every one sent before it. The pong deadline stays the machine's: this only says which
/// inputs (``Input/pong(_:)``, ``Input/pingAnswered(_:_:)``) a pong stands for.
struct SentPings {
    /// What a ping was sent for.
    enum Purpose: Equatable, Sendable {
        /// The heartbeat's ping: its pong is ``Input/pong(_:)``.
        case heartbeat
        /// An app ping: its pong is ``Input/pingAnswered(_:_:)``.
        case app(PingID)
    }

    private var sent: [(number: UInt64, purpose: Purpose)] = []
    private var lastNumber: UInt64 = 0

    /// The number to send the next ping with, recorded before it is written (its pong may be
    /// read before the write returns).
    mutating func record(_ purpose: Purpose) -> UInt64 {
        lastNumber += 1
        sent.append((lastNumber, purpose))
        return lastNumber
    }

    /// The ping was not written: no pong will answer it, and a later one must not either.
    mutating func forget(_ number: UInt64) {
        sent.removeAll { $0.number == number }
    }

    /// The pings a pong carrying `number` answers, oldest first; none when `number` is not an
    /// outstanding ping of ours (answered already, or never sent: the pong changes nothing).
    mutating func answer(upTo number: UInt64) -> [Purpose] {
        guard let index = sent.firstIndex(where: { $0.number == number }) else { return [] }
        let answered = sent[...index].map(\.purpose)
        sent.removeFirst(index + 1)
        return answered
    }
}
