import LiveConnectionTraces

/// A callback armed on one connection, to arrive after the client closed it.
///
/// ```swift
/// var late = LateCallback(kind: .close, after: .seconds(2))
/// late.isDue   // false: the client has not closed the connection, or its close still lingers
/// ```
///
/// This is how a stale callback happens on a real socket: the manager ends a generation
/// and closes its connection, but the closing handshake takes a while (RFC 6455 §5.5.1: the
/// client reads on until the server's close arrives), and meanwhile the old connection
/// still delivers what was in flight (a pong included) to the shell's receive loop, tagged
/// with the generation that ended. The manager has moved on by then and must fence it.
struct LateCallback: Equatable {
    let kind: StaleCallback
    /// How long the client's close lingers before the callback arrives (zero: it was
    /// already there when the client closed).
    let after: Duration
    /// Whether a `receive()` may take it now.
    var isDue: Bool

    init(kind: StaleCallback, after: Duration) {
        self.kind = kind
        self.after = after
        isDue = after == .zero
    }

    /// Whether a reader is left for it on `link`: the receive side, and for a pong a ping
    /// in flight for it to answer.
    func canBeTaken(on link: Link) -> Bool {
        switch kind {
        case .message, .close, .error: !link.receiverGone
        case .pong: !link.receiverGone && !link.pingsInFlight.isEmpty
        case .open: false
        }
    }
}
