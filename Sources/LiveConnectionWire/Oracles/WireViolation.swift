import LiveConnection
public import LiveConnectionSimulator

/// One broken wire rule: which, when, which client, and what the server saw.
///
/// ```swift
/// result.violations.first?.rule == .wireOneSocket
/// for rule in Rule.wireRules { print(rule.name, "—", rule.summary) }
/// ```
///
/// The rules are the catalogue's (``Rule/wireRules``, judged by ``Rule/Judge/wire``): each is
/// stated without reference to any client's code, from the wire events (attempts, opens,
/// frames, pings, closes, server endings), the client's claims, the app's intents, and — only
/// for `wire-open-after-handshake` and `wire-resubscribed-before-open` — the client's optional
/// "connected" probe. `docs/guide.md` says what each proves.
public struct WireViolation: Hashable, Sendable, CustomStringConvertible {
    public var rule: Rule
    public var at: Duration
    /// The client (0 in a single-client run; its index in a herd; -1 for the herd as a whole).
    public var client: Int
    public var detail: String

    public var description: String {
        "\(at.traceFormatted) \(rule.name) (\(client < 0 ? "the herd" : "client \(client)")): \(detail)"
    }
}
