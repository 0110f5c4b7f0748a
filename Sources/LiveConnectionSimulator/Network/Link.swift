import LiveConnection
import SimulationKernel

/// One simulated TCP + WebSocket connection, as the network sees it (both ends).
///
/// ```swift
/// var link = Link(id: 1, attempt: 1, generation: 3, endpoint: endpoint, now: .start)
/// link.enqueue(.success(.message(.text("hi"))), now: .start, latency: .milliseconds(20))
/// ```
///
/// Frames from the server wait in ``inbox`` until their delivery instant; the client's
/// `receive()` takes them in order. The ending (a close frame or a reset) is the last
/// item of the inbox, so it arrives after everything sent before it, as on a socket.
struct Link {
    enum Phase: Equatable {
        /// The handshake has not completed (it may hang).
        case handshaking
        /// `connect` returned: the client holds an open connection.
        case open
        /// The client gave up on the handshake (its task was cancelled).
        case abandoned
    }

    let id: Int
    /// The connection attempt that made it (numbered from 1, as in ``WireEvent``).
    let attempt: Int
    /// The manager generation that opened it (named through `connect(to:generation:)`), if known.
    let generation: Generation?
    let endpoint: Endpoint
    let doorbell = Doorbell()

    var phase: Phase = .handshaking
    var openedAt: VirtualClock.Instant?
    var inbox: [(deliverAt: VirtualClock.Instant, event: Result<TransportEvent, TransportError>)] = []
    /// The latest delivery instant queued: frames never overtake each other.
    var lastDeliveryAt: VirtualClock.Instant
    /// When the server ended it (close frame, reset, restart); the client learns later.
    var endedByServerAt: VirtualClock.Instant?
    /// A reset's error, which later writes fail with too.
    var endingError: TransportError?
    /// Writes succeed until the server's ending arrives (a hostile server closed right after
    /// the handshake: the client's subscribes go out before it reads the close, as on a
    /// real socket).
    var writableUntilEndingArrives = false
    /// When the client closed it (or abandoned its handshake).
    var clientClosedAt: VirtualClock.Instant?
    /// The close frame the client sent (nil: not closed, or its handshake abandoned).
    var clientClose: CloseFrame?
    /// The server's close frame, once the client's `receive()` returned it.
    var serverCloseDelivered: CloseFrame?
    /// Last frame in either direction (pings included), for the idle timeout.
    var lastTraffic: VirtualClock.Instant
    /// When a NAT-style idle timeout silently dropped it.
    var idleDroppedAt: VirtualClock.Instant?
    /// Topics the client's subscribe frames named, in the order the transport took them.
    var sentSubscribes: [String] = []
    /// Frames `receive()` has returned.
    var delivered = 0
    /// A callback this connection delivers after the client closed it (a frame that was
    /// already in the socket's buffer, the server's close or an error during the closing
    /// handshake, a pong in flight).
    var late: LateCallback?
    /// The client's reading side is over: a `receive()` returned the ending, failed or was
    /// cancelled, so a late frame, close or error has no one to reach.
    var receiverGone = false
    /// Pings written and not yet answered, oldest first, with the instant each one's pong
    /// reaches the client (a round trip later); a late pong needs one.
    var pingsInFlight: [(number: UInt64, dueAt: VirtualClock.Instant)] = []
    /// Delayed sends in progress on this connection (its writer is stalled meanwhile).
    var stalledSends = 0
    /// When the last delayed send on it completed.
    var lastStallEndedAt: VirtualClock.Instant?

    init(id: Int, attempt: Int, generation: Generation?, endpoint: Endpoint, now: VirtualClock.Instant) {
        self.id = id
        self.attempt = attempt
        self.generation = generation
        self.endpoint = endpoint
        self.lastDeliveryAt = now
        self.lastTraffic = now
    }

    /// The server ended it, the client can still write, and the ending has not arrived yet.
    var endingInFlight: Bool { writableUntilEndingArrives && !inbox.isEmpty }

    /// Open and not closed by the client: the client holds this socket.
    var isHeld: Bool { phase == .open && clientClosedAt == nil }

    /// Whether the server side still talks on it.
    var isAliveForServer: Bool {
        phase == .open && clientClosedAt == nil && endedByServerAt == nil && idleDroppedAt == nil
    }

    /// Queues a frame (or the ending) `latency` from now, never before an earlier one.
    mutating func enqueue(
        _ event: Result<TransportEvent, TransportError>, now: VirtualClock.Instant, latency: Duration
    ) {
        let at = max(lastDeliveryAt, now.advanced(by: latency))
        lastDeliveryAt = at
        inbox.append((at, event))
        doorbell.ring()
    }

    /// Applies a NAT idle timeout lazily: the drop happened `timeout` after the last
    /// frame, whenever we notice it.
    mutating func settleIdle(timeout: Duration?, now: VirtualClock.Instant) {
        guard let timeout, phase == .open, idleDroppedAt == nil, endedByServerAt == nil, clientClosedAt == nil
        else { return }
        let deadline = lastTraffic.advanced(by: timeout)
        if now >= deadline { idleDroppedAt = deadline }
    }

    /// A frame passed: the idle timer starts again (unless the drop already happened).
    mutating func touch(timeout: Duration?, now: VirtualClock.Instant) {
        settleIdle(timeout: timeout, now: now)
        if idleDroppedAt == nil { lastTraffic = now }
    }
}
