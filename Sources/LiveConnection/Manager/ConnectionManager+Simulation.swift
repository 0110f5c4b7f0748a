// Entry points for the simulator only (package access: no app sees them): faults that a real
// transport cannot produce on demand.
extension ConnectionManager {
    /// Hands `input` to the machine as if a job of the shell had produced it.
    ///
    /// ```swift
    /// await manager.inject(.failed(Generation(1), .reset(errno: "ECONNRESET")))  // a late error of g1
    /// ```
    ///
    /// The simulator uses this to deliver an old generation's error, close or pong after a
    /// reconnect, which the shell's own jobs can only produce in races that are hard to
    /// hit on purpose. Messages go through ``inject(message:from:)`` instead, because the
    /// shell must know the message to deliver it.
    package func inject(_ input: Input) {
        if case .received = input {
            preconditionFailure("inject(.received) has no message to deliver; use inject(message:from:)")
        }
        process(input)
    }

    /// Hands a message to the machine as if generation `g`'s receive loop had read it.
    package func inject(message: Message, from g: Generation) {
        received(g, message)
    }
}
