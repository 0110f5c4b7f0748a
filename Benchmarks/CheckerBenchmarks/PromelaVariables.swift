/// The global variables of `connection.pml` and the process's control location, packed
/// into one 64-bit word: SPIN's state vector is 28 bytes; ours is 8.
///
/// ```swift
/// var variables = PromelaVariables()   // phase STOPPED, foreground, everything else 0
/// variables.gen += 1
/// ```
///
/// Each field has the bits its bounds need (a Promela `byte` bounded by a `-D` constant
/// of at most 255 gets 8); a value that does not fit traps instead of wrapping, so the
/// port can never silently merge states SPIN keeps apart.
struct PromelaVariables: Hashable, Sendable {
    /// `mtype = { CONNECTING, OPEN, WAITING, STOPPED, BACKGROUND }`.
    enum Phase: UInt64 {
        case connecting, open, waiting, stopped, background
    }

    private(set) var bits: UInt64 = 0

    init() {
        phase = .stopped
        foreground = true
    }

    // Field layout: (lowest bit, width).
    private static let locationField = (0, 8)
    private static let phaseField = (8, 3)
    private static let wantedField = (11, 1)
    private static let foregroundField = (12, 1)
    private static let genField = (13, 8)
    private static let liveField = (21, 4)
    private static let failuresField = (25, 8)
    private static let pingOutField = (33, 1)
    private static let handshakeDoneField = (34, 1)
    private static let subsSentField = (35, 4)
    private static let deliveredField = (39, 8)
    private static let serverSeqField = (47, 8)
    private static let frozenField = (55, 1)
    private static let terminalField = (56, 1)
    private static let refreshingField = (57, 1)

    @inline(__always)
    private func get(_ field: (Int, Int)) -> Int {
        Int(truncatingIfNeeded: bits >> UInt64(field.0)) & (1 << field.1 - 1)
    }

    @inline(__always)
    private mutating func set(_ field: (Int, Int), _ value: Int) {
        precondition(value >= 0 && value < 1 << field.1, "\(value) does not fit its \(field.1) bits")
        let mask = UInt64(1 << field.1 - 1) << UInt64(field.0)
        bits = bits & ~mask | UInt64(value) << UInt64(field.0)
    }

    var location: Int {
        get { get(Self.locationField) }
        set { set(Self.locationField, newValue) }
    }
    var phase: Phase {
        get { Phase(rawValue: UInt64(get(Self.phaseField)))! }
        set { set(Self.phaseField, Int(newValue.rawValue)) }
    }
    var wanted: Bool {
        get { get(Self.wantedField) != 0 }
        set { set(Self.wantedField, newValue ? 1 : 0) }
    }
    var foreground: Bool {
        get { get(Self.foregroundField) != 0 }
        set { set(Self.foregroundField, newValue ? 1 : 0) }
    }
    var gen: Int {
        get { get(Self.genField) }
        set { set(Self.genField, newValue) }
    }
    var live: Int {
        get { get(Self.liveField) }
        set { set(Self.liveField, newValue) }
    }
    var failures: Int {
        get { get(Self.failuresField) }
        set { set(Self.failuresField, newValue) }
    }
    var pingOut: Bool {
        get { get(Self.pingOutField) != 0 }
        set { set(Self.pingOutField, newValue ? 1 : 0) }
    }
    var handshakeDone: Bool {
        get { get(Self.handshakeDoneField) != 0 }
        set { set(Self.handshakeDoneField, newValue ? 1 : 0) }
    }
    var subsSent: Int {
        get { get(Self.subsSentField) }
        set { set(Self.subsSentField, newValue) }
    }
    var delivered: Int {
        get { get(Self.deliveredField) }
        set { set(Self.deliveredField, newValue) }
    }
    var serverSeq: Int {
        get { get(Self.serverSeqField) }
        set { set(Self.serverSeqField, newValue) }
    }
    var frozen: Bool {
        get { get(Self.frozenField) != 0 }
        set { set(Self.frozenField, newValue ? 1 : 0) }
    }
    var terminal: Bool {
        get { get(Self.terminalField) != 0 }
        set { set(Self.terminalField, newValue ? 1 : 0) }
    }
    var refreshing: Bool {
        get { get(Self.refreshingField) != 0 }
        set { set(Self.refreshingField, newValue ? 1 : 0) }
    }
}
