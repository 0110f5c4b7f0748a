import Foundation

/// How subscriptions, resume requests and sequence numbers look on the wire.
///
/// ```swift
/// let wire = SubscriptionProtocol.json
/// wire.encode(.subscribe("loans"))          // text {"type":"subscribe","topic":"loans"}
/// wire.encode(.resume(after: 41))            // text {"type":"resume","after":41}
/// wire.sequence(.text(#"{"seq":42,"topic":"loans"}"#))  // 42
/// ```
///
/// The machine speaks of "subscribe", "resume" and "sequence numbers" in the abstract;
/// this value is the only place that knows a particular server's spelling of them.
public struct SubscriptionProtocol: Sendable {
    /// Spells a control frame (commands are the app's bytes and are sent as they are).
    public var encode: @Sendable (Outbound.Control) -> Message
    /// The resume sequence number of an incoming message, if it carries one.
    public var sequence: @Sendable (Message) -> UInt64?

    public init(
        encode: @escaping @Sendable (Outbound.Control) -> Message,
        sequence: @escaping @Sendable (Message) -> UInt64?
    ) {
        self.encode = encode
        self.sequence = sequence
    }

    /// JSON text frames: `{"type":"subscribe","topic":T}`, `{"type":"unsubscribe","topic":T}`,
    /// `{"type":"resume","after":N}`; incoming messages carry `"seq": N` at the top level.
    public static let json = SubscriptionProtocol(
        encode: { control in
            switch control {
            case .subscribe(let topic): .text(#"{"type":"subscribe","topic":\#(topic.jsonQuoted)}"#)
            case .unsubscribe(let topic): .text(#"{"type":"unsubscribe","topic":\#(topic.jsonQuoted)}"#)
            case .resume(let after): .text(#"{"type":"resume","after":\#(after)}"#)
            }
        },
        sequence: { message in
            // The compact spelling servers write, without the parser (see CompactSequence).
            if case .text(let text) = message, let compact = CompactSequence(text) {
                switch compact {
                case .number(let number): return number
                case .absent: return nil
                }
            }
            guard let object = try? JSONSerialization.jsonObject(with: message.data) as? [String: Any],
                let number = object["seq"] as? NSNumber, number.int64Value >= 0
            else { return nil }
            return number.uint64Value
        }
    )
}

extension String {
    /// This string as a JSON string literal, quoted and escaped as JSON requires.
    ///
    /// ```swift
    /// "say \"hi\"".jsonQuoted   // "\"say \\\"hi\\\"\""
    /// ```
    ///
    /// The wire format's one spelling of a string, shared by the manager and the simulated server.
    /// JSON (RFC 8259) is the language here, which is why it is not shared with the package's
    /// two other escapers: `SVGWriter.escape` writes XML entities (`&amp;`, `&lt;`), and
    /// `TraceToken.quoted` writes the trace format's quoting, whose `\u{…}` escapes and escaped
    /// line separators no JSON parser reads (JSON's `\u00XX` must stay four hex digits).
    package var jsonQuoted: String {
        // Most strings need no escape: copied whole, not looked up scalar by scalar (a hash
        // per scalar was 0.6 % of the simulator's CPU: every subscribe and every broadcast).
        let needsEscape = utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
        guard needsEscape else { return "\"" + self + "\"" }
        var out = "\""
        for scalar in unicodeScalars {
            if let escape = Self.jsonShortEscapes[scalar] {
                out += escape
            } else if scalar.value < 0x20 {
                // Every other control character as `\u` and exactly four hex digits.
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// The two-character escapes this spelling uses (JSON has two more, `\b` and `\f`, which
    /// it writes as `\u0008` and `\u000c`, as it always has).
    private static let jsonShortEscapes: [Unicode.Scalar: String] = [
        "\"": "\\\"", "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t",
    ]
}
