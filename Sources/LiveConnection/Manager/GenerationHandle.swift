import Synchronization

/// The shell's grip on one generation's connection job: a mailbox of orders, and a
/// signal that abandons the attempt.
///
/// ```swift
/// let handle = GenerationHandle()
/// handle.markOpen()
/// handle.post(.send(.text("hi"), command: nil))
/// handle.close(code: .normal, reason: "disconnected")  // writes what is queued, then closes
/// ```
///
/// Frames go through one mailbox so they reach the transport in the machine's order
/// (subscribes before resume before the app's commands). Before the handshake completes
/// nothing reads the mailbox, so closing then cancels the attempt instead.
final class GenerationHandle: Sendable {
    enum Order: Sendable {
        case send(Message, command: CommandID?)
        /// Reply ``Input/flushed(_:)`` once everything before it was written.
        case flush
        /// The heartbeat's ping: its pong, read by the receive loop, is ``Input/pong(_:)``.
        case ping
        /// An app ping: its pong, read by the receive loop, is ``Input/pingAnswered(_:_:)``.
        case appPing(PingID)
        case close(CloseCode, String)
    }

    let signal = CancellationSignal()
    let orders = Mailbox<Order>()
    private let isOpen = Mutex(false)
    /// Written by the orders loop, answered by the receive loop.
    private let pings = Mutex(SentPings())

    init() {}

    /// The handshake completed: from now on closing goes through the mailbox.
    func markOpen() { isOpen.withLock { $0 = true } }

    func post(_ order: Order) { orders.post(order) }

    /// The number for a ping about to be written for `purpose`.
    func recordPing(_ purpose: SentPings.Purpose) -> UInt64 { pings.withLock { $0.record(purpose) } }

    /// A ping whose write failed.
    func forgetPing(_ number: UInt64) { pings.withLock { $0.forget(number) } }

    /// What a pong carrying `number` answers (nothing for one that is not ours).
    func answerPings(upTo number: UInt64) -> [SentPings.Purpose] { pings.withLock { $0.answer(upTo: number) } }

    /// The close the machine ordered, kept beside the mailbox: a manager cancelled right
    /// after ordering it (the app calls `disconnect(code:reason:)`, then shuts down) stops
    /// the orders loop before it reads the order, and the socket must still close with the
    /// app's code and reason, not the shutdown's.
    var orderedClose: CloseFrame? { closeOrder.withLock { $0 } }
    private let closeOrder = Mutex<CloseFrame?>(nil)

    func close(code: CloseCode, reason: String) {
        if isOpen.withLock({ $0 }) {
            closeOrder.withLock { $0 = CloseFrame(code: code, reason: reason) }
            orders.post(.close(code, reason))
            orders.finish()
        } else {
            abandon()
        }
    }

    /// Cancels the job outright (an attempt in progress, or the manager shutting down).
    func abandon() {
        orders.finish()
        signal.fire()
    }
}
