import LiveConnection

extension TransportConnection {
    /// Pings with `number` and receives until its pong (or a later one's) comes back; returns
    /// the messages read meanwhile. Throws if the connection ends first. The seam's ping
    /// returns once written, so a test that wants the round trip reads the pong itself.
    @discardableResult
    func pingRoundTrip(_ number: UInt64) async throws(TransportError) -> [Message] {
        try await ping(number)
        var messages: [Message] = []
        while true {
            switch try await receive() {
            case .pong(let answered) where answered >= number: return messages
            case .pong: continue
            case .message(let message): messages.append(message)
            case .closed: throw .notConnected
            }
        }
    }
}
