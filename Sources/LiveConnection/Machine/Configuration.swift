/// The knobs of a connection machine; every default is the production value.
///
/// ```swift
/// var configuration = ConnectionConfiguration()
/// configuration.heartbeatInterval = .milliseconds(500)   // tests: P = T = 500 ms
/// configuration.heartbeatTimeout = .milliseconds(500)
/// configuration.backoff = .table()
/// ```
public struct ConnectionConfiguration: Hashable, Sendable {
    /// P: a ping every P while open.
    public var heartbeatInterval: Duration = .seconds(25)
    /// T: no pong (or any frame) within T of the oldest unanswered ping → "heartbeat missed".
    /// A peer that dies is declared dead within P + T.
    public var heartbeatTimeout: Duration = .seconds(10)
    /// A handshake that takes longer than this is abandoned ("connect timeout").
    public var connectTimeout: Duration = .seconds(10)
    /// The wait between attempts.
    public var backoff: BackoffPolicy = .fullJitter()
    /// Close codes after which retrying is pointless: stop (1008 policy violation, 4003 forbidden).
    public var terminalCloseCodes: Set<CloseCode> = [.policyViolation, .forbidden]
    /// Close codes that mean the credentials expired: refresh them once, then reconnect.
    public var refreshCloseCodes: Set<CloseCode> = [.tokenExpired]
    /// Handshake statuses that mean the same as a refresh close code (401 Unauthorized).
    public var refreshHandshakeStatuses: Set<Int> = [401]
    /// Handshake statuses after which retrying is pointless (403 Forbidden).
    public var terminalHandshakeStatuses: Set<Int> = [403]
    /// When the manager asks its credentials provider: after an expiry (the default), or
    /// before every connection attempt.
    public var credentialsTiming: CredentialsTiming = .afterExpiry
    /// Ask the server to replay from the last sequence number on every new connection.
    public var resume: Bool = true
    /// Give up after this many failures since a connection last proved itself (answered a
    /// heartbeat), ending in `stopped("gave up after N attempts")`; `connect(to:)` starts over.
    /// The same count as the backoff's: a server that accepts then closes at once is given up
    /// on, not retried forever. Opt-in: nil (the default) retries until `disconnect()`. Set it
    /// with ``limitAttempts(to:)``, which refuses a limit below 1.
    public private(set) var maximumAttempts: Int? = nil

    public init() {}

    /// When the credentials provider is asked for credentials.
    ///
    /// ```swift
    /// var configuration = ConnectionConfiguration()
    /// configuration.credentialsTiming = .beforeEveryConnect   // short-lived tokens: a fresh one per attempt
    /// let manager = ConnectionManager(configuration: configuration, transport: transport,
    ///                                 credentials: { [.init("Authorization", "Bearer \(try await tokens.mint())")] })
    /// ```
    public enum CredentialsTiming: Hashable, Sendable {
        /// Only after the server says the credentials expired (a refresh close code such as
        /// 4001, or HTTP 401): one refresh, then reconnect. Attempts reuse the last headers.
        case afterExpiry
        /// Before every connection attempt, as part of it (the phase is connecting, the connect
        /// timeout covers the provider too). A provider that throws fails that attempt like a
        /// refused connection (backoff, attempt limit). An expiry needs no refresh of its own:
        /// it is a failure, and the next attempt fetches fresh credentials anyway.
        case beforeEveryConnect
    }

    /// Gives up after `limit` failures since a connection last proved itself; nil retries
    /// until `disconnect()`.
    ///
    /// ```swift
    /// var configuration = ConnectionConfiguration()
    /// try configuration.limitAttempts(to: 5)
    /// ```
    /// - Throws: ``ConfigurationError/outOfRange(_:value:range:)`` for a limit below 1 (a limit
    ///   of 0 cannot be kept: the first attempt is made before any can fail), and nothing changes.
    public mutating func limitAttempts(to limit: Int?) throws(ConfigurationError) {
        if let limit, limit < 1 {
            throw .outOfRange("maximumAttempts", value: limit, range: "at least 1, or nil for no limit")
        }
        maximumAttempts = limit
    }
}
