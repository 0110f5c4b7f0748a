public import LiveConnection

/// What a ``WebSocketServer`` does with its connections: the application half of a server.
///
/// ```swift
/// struct Shout: WebSocketServerHandler {
///     func received(_ message: Message, on connection: ServerConnection) async {
///         if case .text(let text) = message { connection.send(.text(text.uppercased())) }
///     }
/// }
/// ```
///
/// Every method has a default, so a handler implements only what it needs. The server
/// calls a connection's methods from that connection's task, in order: `handshake`, then
/// `opened`, then `received` for each message, then `closed` exactly once after `opened`.
/// Different connections call concurrently.
public protocol WebSocketServerHandler: Sendable {
    /// Accepts (optionally choosing one of the offered subprotocols) or refuses with a status.
    func handshake(_ request: UpgradeRequest) async -> HandshakeDecision
    /// The 101 went out; the connection can send.
    func opened(_ connection: ServerConnection) async
    /// A whole data message from the client.
    func received(_ message: Message, on connection: ServerConnection) async
    /// The connection ended (close handshake, failure, reset or server shutdown).
    func closed(_ connection: ServerConnection) async
    /// A plain HTTP request (no `Upgrade: websocket`): its answer, or nil to refuse it as a
    /// bad upgrade (400). The connection closes after the answer.
    func plainRequest(_ head: HTTPHead, body: [UInt8]) async -> HTTPResponse?
}

/// A handler's answer to a handshake.
public enum HandshakeDecision: Hashable, Sendable {
    case accept(subprotocol: String?)
    case refuse(UpgradeRefusal)
}

extension WebSocketServerHandler {
    public func handshake(_ request: UpgradeRequest) async -> HandshakeDecision { .accept(subprotocol: nil) }
    public func opened(_ connection: ServerConnection) async {}
    public func received(_ message: Message, on connection: ServerConnection) async {}
    public func closed(_ connection: ServerConnection) async {}
    public func plainRequest(_ head: HTTPHead, body: [UInt8]) async -> HTTPResponse? { nil }
}

/// Sends every message back as it came (same type, same bytes): the server Autobahn's
/// `fuzzingclient` and the echo benchmark talk to.
public struct EchoHandler: WebSocketServerHandler {
    public init() {}

    public func received(_ message: Message, on connection: ServerConnection) async {
        connection.send(message)
    }
}
