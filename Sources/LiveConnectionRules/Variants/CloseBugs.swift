package import LiveConnection

// Broken variants for close frames in both directions: the app's own on a disconnect, the
// server's on the way to the app. Each plants one bug a maintainer could write.

/// Hands the app's `disconnect(code:reason:)` on without its arguments (an intent forwarded
/// as plain `disconnect()`): the server is told 1000 "disconnected" instead of the app's frame.
package struct ForgetsCloseCode: MachineWrapper {
    package var base: ConnectionMachine
    package init(base: ConnectionMachine) { self.base = base }

    package mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        guard case .disconnect = input else { return base.handle(input, using: &random) }
        return base.handle(.disconnect(), using: &random)
    }
}

/// Keeps the server's close code but loses its reason on the way in (the reason passed on as
/// ""): the app is told `closed 4001` with an empty reason, not the server's words.
package struct DropsCloseReason: MachineWrapper {
    package var base: ConnectionMachine
    package init(base: ConnectionMachine) { self.base = base }

    package mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
        guard case .closedByPeer(let g, let code, _) = input else { return base.handle(input, using: &random) }
        return base.handle(.closedByPeer(g, code: code, reason: ""), using: &random)
    }
}
