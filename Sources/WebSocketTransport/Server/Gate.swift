/// A gate tasks pass while it is open and wait at while it is shut: how a frozen server
/// stops reading, writing and answering handshakes without closing anything.
///
/// ```swift
/// gate.shut()
/// try await gate.pass()   // suspends until gate.open(), or throws .cancelled
/// ```
///
/// Waiting holds no thread, and a cancelled waiter leaves at once (the server's own
/// shutdown cancels every connection task). The gate is a `Passage` that stays open
/// behind whoever goes through.
package final class Gate: Sendable {
    private let passage = Passage(isOpen: true)

    package init() {}

    package var isOpen: Bool { passage.isOpen }

    package func shut() { passage.close() }

    package func open() { passage.open() }

    /// Returns at once if open; otherwise when opened. Throws `CancellationError` if the task is cancelled.
    package func pass() async throws(CancellationError) {
        if !(await passage.pass(closingBehind: false)) { throw CancellationError() }
    }
}
