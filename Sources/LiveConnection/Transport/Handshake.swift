/// What the server answered the opening handshake with, visible to the app once open.
///
/// ```swift
/// for await event in await manager.events() {
///     if case .phase(.open) = event, let handshake = await manager.handshake {
///         print("speaking \(handshake.subprotocol ?? "no subprotocol")")
///         print("session", handshake.values(of: "X-Session-ID"))
///     }
/// }
/// ```
///
/// The transport fills it (`WebSocketTransport` from the 101 response); a transport that
/// does not know it leaves it empty.
public struct Handshake: Hashable, Sendable {
    /// The subprotocol the server chose (one of ``Endpoint/subprotocols``), or nil.
    public var subprotocol: String?
    /// The response's headers, in the order received; names as the transport reports them
    /// (`WebSocketTransport` lower-cases them).
    public var headers: [Endpoint.Header]

    public init(subprotocol: String? = nil, headers: [Endpoint.Header] = []) {
        self.subprotocol = subprotocol
        self.headers = headers
    }

    /// The values of a header, matched without regard to case, in the order received.
    public func values(of name: String) -> [String] {
        let lowered = name.lowercased()
        return headers.filter { $0.name.lowercased() == lowered }.map(\.value)
    }
}
