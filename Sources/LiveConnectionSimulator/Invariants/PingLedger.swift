import LiveConnection
import SimulationKernel

/// The judge of `pings-answered-once`: every ping the app asks for gets exactly one outcome,
/// by its own deadline at the latest (seed 004's once-gate).
///
/// ```swift
/// var ledger = PingLedger()
/// ledger.observe(.ping(PingID(1), timeout: .seconds(2)), [.sendPing(3, PingID(1)), …], now: t)
/// ledger.overdue(now: t + .seconds(3))   // ["p1 asked at …: no outcome by its deadline …"] if never answered
/// ```
///
/// It reads what the app sees of a ping: the request (`ping` input) and the answer handed
/// back (`completePing`), never the machine's bookkeeping of pings in flight. Kept in
/// arrays, not dictionaries, so reports never depend on hash order.
struct PingLedger {
    /// Asked and not yet answered, in asking order, with the instant the answer is due by.
    private(set) var waiting: [(id: PingID, asked: VirtualClock.Instant, due: VirtualClock.Instant)] = []
    /// Answered, so a second answer is caught.
    private var answered: Set<PingID> = []

    /// Notes one step of the manager; returns what it broke.
    mutating func observe(_ input: Input, _ effects: [Effect], now: VirtualClock.Instant) -> [String] {
        if case .ping(let id, let timeout) = input { waiting.append((id, now, now + timeout)) }
        var problems: [String] = []
        for case .completePing(let id, let outcome) in effects {
            if let index = waiting.firstIndex(where: { $0.id == id }) {
                waiting.remove(at: index)
                answered.insert(id)
            } else if answered.contains(id) {
                problems.append("\(id) answered a second time (\(outcome)), after \(input)")
            } else {
                problems.append("\(id) answered (\(outcome)) but never asked for")
            }
        }
        return problems
    }

    /// Pings whose deadline (and the real clock's `tolerance` after it) passed without an outcome.
    mutating func overdue(now: VirtualClock.Instant, tolerance: Duration = .zero) -> [String] {
        let late = waiting.filter { now > $0.due + tolerance }
        waiting.removeAll { now > $0.due + tolerance }
        for ping in late { answered.insert(ping.id) }
        return late.map { "\($0.id) asked at \($0.asked): no outcome by its deadline \($0.due) (now \(now))" }
    }
}
