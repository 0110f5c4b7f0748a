import LiveConnection

/// A kind of trouble a run can inject; swarm testing turns each on or off per seed.
///
/// ```swift
/// FaultKind(of: .resetConnection)      // .reset
/// FaultKind(of: .deliverStale(.pong))  // .staleCallback
/// FaultKind.allCases.count             // 23
/// ```
///
/// Kinds group the ``SimulationAction``s a generator schedules together (a freeze and
/// its thaw are one `.freeze` fault). Broadcasts are traffic, not faults, and every
/// scenario has them; app intents are kinds too, because a background/foreground cycle
/// or a disconnect is as much a test of the manager as a reset.
public enum FaultKind: String, CaseIterable, Hashable, Sendable, Comparable {
    // The server and the network.
    case refuse
    case handshakeFailure
    case handshakeHang
    case close
    case terminalClose
    case reset
    case freeze
    case latency
    case restart
    case idleTimeout
    // Only a simulator can give these.
    case staleCallback
    case duplicateFrame
    case delayedSend
    // The app.
    case background
    case disconnect
    case endpointSwitch
    case commands
    case subscriptionChurn
    /// Broadcasts: always on, counted with the rest.
    case broadcast
    /// A hostile server: accepts then closes at once, answers 401 for good, completes
    /// handshakes too slowly, sends a malformed frame, or flaps between healthy and one of
    /// these. Last, so that the seeds made before it draw the other kinds as they did.
    case hostileServer
    /// The app pings the server (`manager.ping(timeout:)`). After the hostile server, for
    /// the same reason: earlier seeds keep every action they had, and gain the pings.
    case appPing
    /// The device loses its network path and regains it; the app's path monitor tells the
    /// manager each time. Last, for the same reason as the two before it.
    case networkPath

    /// The kind an action belongs to (`nil` for the run's opening intents).
    public init?(of action: SimulationAction) {
        switch action {
        case .refuseConnections: self = .refuse
        case .failHandshakes: self = .handshakeFailure
        case .hangHandshakes: self = .handshakeHang
        case .broadcast: self = .broadcast
        case .closeConnection(let code, _):
            self = code == .forbidden || code == .policyViolation ? .terminalClose : .close
        case .resetConnection: self = .reset
        case .freeze, .thaw: self = .freeze
        case .setLatency: self = .latency
        case .restartServer: self = .restart
        case .setIdleTimeout: self = .idleTimeout
        case .hostile: self = .hostileServer
        case .deliverStale: self = .staleCallback
        case .duplicateNextCallback: self = .duplicateFrame
        case .delaySendCompletion: self = .delayedSend
        case .setForeground: self = .background
        case .disconnect, .disconnectWith: self = .disconnect
        case .connect: self = .endpointSwitch
        case .send: self = .commands
        case .ping: self = .appPing
        case .subscribe, .unsubscribe: self = .subscriptionChurn
        case .path: self = .networkPath
        }
    }

    public static func < (lhs: FaultKind, rhs: FaultKind) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// How many faults of each kind a run (or a whole exploration) injected.
///
/// ```swift
/// var counts = FaultCounts()
/// counts[.reset] += 1
/// counts.total   // 1
/// ```
///
/// An array indexed by `allCases`, not a dictionary, so that printing and
/// adding counts never depends on hash order.
public struct FaultCounts: Hashable, Sendable {
    private var counts = [Int](repeating: 0, count: FaultKind.allCases.count)

    public init() {}

    public subscript(kind: FaultKind) -> Int {
        get { counts[FaultKind.allCases.firstIndex(of: kind)!] }
        set { counts[FaultKind.allCases.firstIndex(of: kind)!] = newValue }
    }

    public var total: Int { counts.reduce(0, +) }

    /// Kinds with a non-zero count, in declaration order.
    public var nonZero: [(kind: FaultKind, count: Int)] {
        zip(FaultKind.allCases, counts).filter { $0.1 > 0 }.map { ($0.0, $0.1) }
    }

    public static func + (lhs: FaultCounts, rhs: FaultCounts) -> FaultCounts {
        var sum = lhs
        for index in sum.counts.indices { sum.counts[index] += rhs.counts[index] }
        return sum
    }
}
