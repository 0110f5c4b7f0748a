import WebSocketTransport

/// Which connections a ``WebSocketProxy`` fault control aims at.
///
/// ```swift
/// proxy.freeze(.all)                  // every connection, and every later one until thaw
/// proxy.freeze(.client("phone-a"))    // phone-a's connections, now and after it reconnects
/// ```
public enum FaultTarget: Hashable, Sendable, CustomStringConvertible {
    /// Every connection.
    case all
    /// The connections of one client, by its ``ClientIdentity``.
    case client(String)

    public var description: String {
        switch self {
        case .all: "all"
        case .client(let identity): "client \(identity)"
        }
    }

    /// The client aimed at; nil for every connection.
    public var client: String? {
        switch self {
        case .all: nil
        case .client(let identity): identity
        }
    }

    func matches(_ identity: String) -> Bool {
        switch self {
        case .all: true
        case .client(let wanted): wanted == identity
        }
    }
}

/// How the proxy writes a frame when slicing is on: in pieces of `bytes`, with `pause`
/// between them, so a client's reads see partial frames (and the link has a bandwidth of
/// about `bytes` per `pause`).
public struct Slicing: Hashable, Sendable, CustomStringConvertible {
    public var bytes: Int
    public var pause: Duration

    public init(bytes: Int, pause: Duration) {
        precondition(bytes > 0 && pause >= .zero, "slices must be at least a byte, pauses not negative")
        self.bytes = bytes
        self.pause = pause
    }

    public var description: String { "\(bytes)B/\(ProxyFaults.milliseconds(pause))" }
}

/// The standing faults of a proxy: each set for every connection (``FaultTarget/all``) or for
/// one client. A client's own setting wins over the one for all; freeze and hang hold a
/// connection when either holds it.
struct ProxyFaults {
    var handshakeStatus: [FaultTarget: Int] = [:]
    var acceptThenClose: [FaultTarget: ClosePayload] = [:]
    var latency: [FaultTarget: Duration] = [:]
    var slicing: [FaultTarget: Slicing] = [:]
    var frozen: Set<FaultTarget> = []
    var hung: Set<FaultTarget> = []

    /// The setting that applies to a client: its own, else the one for all.
    static func effective<Value>(_ settings: [FaultTarget: Value], for client: String) -> Value? {
        settings[.client(client)] ?? settings[.all]
    }

    /// A duration in the admin routes' words: whole milliseconds, `200ms`.
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return "\(seconds * 1000 + attoseconds / 1_000_000_000_000_000)ms"
    }

    /// Clients with a standing fault of their own.
    var targetedClients: Set<String> {
        var clients = Set<String>()
        let targets =
            Array(handshakeStatus.keys) + Array(acceptThenClose.keys) + Array(latency.keys) + Array(slicing.keys)
            + Array(frozen) + Array(hung)
        for case .client(let identity) in targets { clients.insert(identity) }
        return clients
    }
}
