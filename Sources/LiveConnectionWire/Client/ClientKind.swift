/// A named kind of client, with what it claims about itself: the unit `livesim explore
/// --client NAME` runs.
///
/// ```swift
/// let kind = ClientKind(name: "mine", summary: "my app's socket", claims: claims) { context in
///     MyClient(context: context)
/// }
/// let summary = WireExplorer(seeds: 0..<1_000, kind: kind).run()
/// ```
///
/// The claims are the client's promises (its backoff policy, its dead-peer deadline, its
/// terminal codes): the wire judge holds it to them, and to the rules every reconnecting
/// client must keep whatever it claims (one socket, resubscription, quiet after
/// disconnect, a herd that spreads out, reconnecting once the server is healthy again).
public struct ClientKind: Sendable {
    /// The `--client` name.
    public var name: String
    /// One line for `livesim help explore`.
    public var summary: String
    public var claims: WireClaims
    /// Makes one client for a run (a herd makes several, each with its own context).
    public var make: @Sendable (WireClientContext) -> any WireClient

    public init(
        name: String, summary: String, claims: WireClaims,
        make: @escaping @Sendable (WireClientContext) -> any WireClient
    ) {
        self.name = name
        self.summary = summary
        self.claims = claims
        self.make = make
    }
}
