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
    let orders: AsyncStream<Order>
    private let continuation: AsyncStream<Order>.Continuation
    private let isOpen = Mutex(false)

    init() {
        (orders, continuation) = AsyncStream.makeStream(of: Order.self)
    }

    /// The handshake completed: from now on closing goes through the mailbox.
    func markOpen() { isOpen.withLock { $0 = true } }

    func post(_ order: Order) { continuation.yield(order) }

    func close(code: CloseCode, reason: String) {
        if isOpen.withLock({ $0 }) {
            continuation.yield(.close(code, reason))
            continuation.finish()
        } else {
            abandon()
        }
    }

    /// Cancels the job outright (an attempt in progress, or the manager shutting down).
    func abandon() {
        continuation.finish()
        signal.fire()
    }
}
