/// Why a connection attempt failed or a connection ended without a close frame.
///
/// ```swift
/// throw TransportError.handshakeRejected(status: 503)
/// ```
///
/// Each case has a short ``reason`` that the manager puts in its waiting phase
/// ("error ECONNRESET", "handshake 503"), which is what a user sees in the log.
public enum TransportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The connection was reset or failed at the socket level (errno name, e.g. "ECONNRESET").
    case reset(errno: String)
    /// The server refused the TCP connection.
    case refused
    /// The server answered the upgrade with a status other than 101.
    case handshakeRejected(status: Int)
    /// The handshake response was not a valid WebSocket upgrade.
    case handshakeInvalid(String)
    /// Name resolution failed.
    case unresolvable(host: String)
    /// TLS failed (certificate, host name, protocol).
    case tls(String)
    /// The peer broke the WebSocket protocol; the close code we sent it.
    case protocolViolation(CloseCode, String)
    /// The URL cannot be used (scheme, host, port).
    case invalidURL(String)
    /// The operation needs an open connection and there is none.
    case notConnected
    /// The task was cancelled while the operation was in progress.
    case cancelled
    /// The credentials provider failed before the attempt (with
    /// `ConnectionConfiguration.CredentialsTiming.beforeEveryConnect`); what it threw.
    case credentialsUnavailable(String)

    /// The short reason used in the manager's waiting phase and in traces.
    public var reason: String {
        switch self {
        case .reset(let errno): "error \(errno)"
        case .refused: "error ECONNREFUSED"
        case .handshakeRejected(let status): "handshake \(status)"
        case .handshakeInvalid: "handshake invalid"
        case .unresolvable: "error unresolvable"
        case .tls: "error tls"
        case .protocolViolation(let code, _): "protocol \(code)"
        case .invalidURL: "error invalid url"
        case .notConnected: "error not connected"
        case .cancelled: "cancelled"
        case .credentialsUnavailable: "credentials unavailable"
        }
    }

    public var description: String {
        switch self {
        case .handshakeInvalid(let detail): "handshake invalid: \(detail)"
        case .unresolvable(let host): "cannot resolve \(host)"
        case .tls(let detail): "TLS: \(detail)"
        case .protocolViolation(let code, let detail): "protocol violation (\(code)): \(detail)"
        case .invalidURL(let detail): "invalid URL: \(detail)"
        case .credentialsUnavailable(let detail): "credentials unavailable: \(detail)"
        default: reason
        }
    }
}
