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
        case ping
        /// An app ping: reply ``Input/pingAnswered(_:_:)`` when its pong arrives.
        case appPing(PingID)
        case close(CloseCode, String)
    }

    let signal = CancellationSignal()
    let orders = Mailbox<Order>()
    private let isOpen = Mutex(false)

    init() {}

    /// The handshake completed: from now on closing goes through the mailbox.
    func markOpen() { isOpen.withLock { $0 = true } }

    func post(_ order: Order) { orders.post(order) }

    func close(code: CloseCode, reason: String) {
        if isOpen.withLock({ $0 }) {
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
