public import LiveConnection

public import typealias LiveConnection.Mutex

/// The simulated identity server: the manager's credentials provider asks it for a token,
/// and each answer is a new one (`Authorization: Bearer sim-1`, `sim-2`, …).
///
/// ```swift
/// let issuer = CredentialsIssuer()
/// let manager = ConnectionManager(transport: network, clock: clock, credentials: issuer.provider)
/// // … after two fetches …
/// issuer.issued                                        // 2
/// CredentialsIssuer.token(in: link.endpoint.headers)    // 2: that handshake carried sim-2
/// ```
///
/// Numbered in the order asked, which the simulator's executor makes deterministic. The
/// invariants compare the number it had issued when the manager decided to dial with the
/// token the handshake carried (the network keeps each handshake's headers): the world's
/// truth about credentials, as the server sees them.
public final class CredentialsIssuer: Sendable {
    private let count = Mutex(0)

    public init() {}

    /// How many tokens it has handed out.
    public var issued: Int { count.withLock { $0 } }

    /// The provider to give a `ConnectionManager`.
    public var provider: ConnectionManager.CredentialsProvider {
        { [self] in [Endpoint.Header(Self.headerName, "\(Self.tokenPrefix)\(issue())")] }
    }

    /// Hands out the next token's number.
    private func issue() -> Int {
        count.withLock { count in
            count += 1
            return count
        }
    }

    /// The number of the token among `headers` (nil: no token of this issuer).
    public static func token(in headers: [Endpoint.Header]) -> Int? {
        guard let header = headers.last(where: { $0.name.lowercased() == headerName.lowercased() }),
            header.value.hasPrefix(tokenPrefix)
        else { return nil }
        return Int(header.value.dropFirst(tokenPrefix.count))
    }

    static let headerName = "Authorization"
    static let tokenPrefix = "Bearer sim-"
}
