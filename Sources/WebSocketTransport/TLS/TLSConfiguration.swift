/// How `wss://` connections verify the server. Verification is always on.
///
/// ```swift
/// let pem = try String(contentsOfFile: "test-ca.pem", encoding: .utf8)
/// let transport = WebSocketTransport(configuration: .init(tls: .init(trusting: [pem])))
/// ```
///
/// There is deliberately no switch to skip certificate or host name checks: a bad
/// certificate is a clear `tls(_:)` error, never a silent
/// downgrade. To talk to a server with a private or test CA, trust that CA.
public struct TLSConfiguration: Sendable, Hashable {
    /// CA certificates (PEM text, one or more per string) trusted in addition to, or instead of, the system's.
    public var trustedCertificatesPEM: [String]
    /// Whether the operating system's root store is trusted too.
    public var trustsSystemRoots: Bool

    public init(trusting trustedCertificatesPEM: [String] = [], trustsSystemRoots: Bool = true) {
        self.trustedCertificatesPEM = trustedCertificatesPEM
        self.trustsSystemRoots = trustsSystemRoots
    }
}
