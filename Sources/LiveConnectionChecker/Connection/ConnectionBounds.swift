/// How big a world the connection model explores: the counters and sets that would
/// otherwise make the space infinite.
///
/// ```swift
/// var bounds = ConnectionBounds()
/// bounds.topics = 3          // subscribe/unsubscribe over three topics
/// bounds.serverLog = 3       // the server broadcasts sequence numbers 1...3
/// let model = ConnectionModel(bounds: bounds)
/// ```
///
/// Every field is a count of distinct things the environment can use; the search is
/// exhaustive for that world. A bug that needs four topics to show is missed at three:
/// that is the small-scope hypothesis, and the defaults are the smallest world in which
/// every rule of the machine is exercised (two topics to check resubscription order, two
/// commands to check one completion each, two sequence numbers to make a gap).
public struct ConnectionBounds: Hashable, Sendable {
    /// Topics the app may subscribe to (0...3).
    public var topics = 2
    /// Commands the app may send, each once (0...3).
    public var commands = 2
    /// App pings (`ConnectionManager.ping(timeout:)`) the app may ask for (0 or 1). The ping
    /// takes the third command's place in the packed state: `commands + pings` is at most 3.
    public var pings = 1
    /// The highest sequence number the server broadcasts (0...7); 0 disables resume traffic.
    public var serverLog = 2
    /// Endpoints `connect(to:)` may name (1 or 2).
    public var endpoints = 2
    /// Offer background and foreground.
    public var lifecycle = true
    /// Offer network down, freeze and thaw.
    public var networkFaults = true
    /// Offer late callbacks of dead generations.
    public var staleCallbacks = true
    /// Offer the app's network path reports (`setPathViable(false)`, then `true`).
    public var networkPath = true

    public init() {}

    /// The bounds `livesim check` uses by default: exhausted in seconds.
    public static let standard = ConnectionBounds()

    /// Bigger bounds for the benchmark (more than ten million states).
    public static var large: ConnectionBounds {
        var bounds = ConnectionBounds()
        bounds.topics = 3
        bounds.commands = 3
        bounds.pings = 0  // the third command takes the ping's place
        bounds.serverLog = 3
        return bounds
    }

    func validate() throws(ConnectionModelError) {
        guard (0...3).contains(topics) else { throw .boundOutOfRange("topics", topics, 0...3) }
        guard (0...3).contains(commands) else { throw .boundOutOfRange("commands", commands, 0...3) }
        guard (0...7).contains(serverLog) else { throw .boundOutOfRange("serverLog", serverLog, 0...7) }
        guard (1...2).contains(endpoints) else { throw .boundOutOfRange("endpoints", endpoints, 1...2) }
        guard (0...1).contains(pings) else { throw .boundOutOfRange("pings", pings, 0...1) }
        guard commands + pings <= 3 else { throw .boundOutOfRange("commands + pings", commands + pings, 0...3) }
    }
}

/// A configuration or bound the connection model cannot represent.
public enum ConnectionModelError: Error, Hashable, Sendable, CustomStringConvertible {
    case boundOutOfRange(String, Int, ClosedRange<Int>)
    /// The policy's delays after boundary draws do not settle into a small set (more than 60).
    case tooManyDelays(Int)
    /// The policy's ceiling never stops growing within 14 failures.
    case backoffNeverSaturates
    /// The policy's ceiling shrinks as failures grow: the bound check assumes it does not.
    case backoffNotMonotone

    public var description: String {
        switch self {
        case .boundOutOfRange(let name, let value, let range):
            "bound \(name) = \(value) is outside \(range.lowerBound)...\(range.upperBound)"
        case .tooManyDelays(let count):
            "the backoff policy yields \(count)+ distinct boundary delays; the model supports 60"
        case .backoffNeverSaturates:
            "the backoff policy's distribution keeps changing after 14 failures; the model needs it to settle"
        case .backoffNotMonotone:
            "the backoff policy's upper bound decreases with failures; the delay check assumes it grows"
        }
    }
}
