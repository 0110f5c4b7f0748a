public import LiveConnection
import WebSocketTransport

/// A fault control a ``WebSocketProxy`` applied, with its values, as a ``ProxyObserver``
/// hears it once (with the ``FaultTarget`` it was aimed at) before the fault acts.
///
/// ```swift
/// struct FaultLog: ProxyObserver {
///     func observe(_ event: ProxyEvent) {}
///     func observe(_ fault: ProxyFault, aimedAt target: FaultTarget) { print(target, fault) }
/// }
/// // client phone-a close(code: 4003, reason: "forbidden")
/// ```
///
/// The per-connection ``ProxyEvent/Kind/fault(_:)`` events say which connections a fault
/// touched; this says what was set and for whom, including settings that touch no connection
/// yet (a handshake status for a client that is not connected): what a wire history records.
public enum ProxyFault: Hashable, Sendable {
    case freeze
    case thaw
    /// The listening socket closed (true) or bound again (false); always aimed at all.
    case refuse(Bool)
    /// Later handshakes answered with this status (nil: passed on again).
    case handshakeStatus(Int?)
    case hang(Bool)
    /// Later connections opened and at once closed with this code (nil: no more).
    case acceptThenClose(code: CloseCode?, reason: String)
    /// The open connections closed with this code and reason.
    case close(code: CloseCode, reason: String)
    /// The open connections reset on both links.
    case reset
    /// Frames delayed by this much each way (nil: the setting removed).
    case latency(Duration?)
    /// Frames written in slices (nil: whole again).
    case slicing(Slicing?)
}
