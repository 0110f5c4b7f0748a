import Foundation

/// The three contract frames of docs/server-contract.md, read as JSON.
///
/// ```swift
/// ContractFrame.read(#"{"type":"subscribe","topic":"feed"}"#)         // .frame(.subscribe("feed"))
/// ContractFrame.read(#"{ "topic": "feed", "type": "subscribe" }"#)    // the same: any spacing, any key order
/// ContractFrame.read(#"{"type":"resume","after":-1}"#)                 // .unreadable("resume needs …")
/// ContractFrame.read("buy 10")                                         // .command: the app's own bytes
/// ```
///
/// A client written in any language spells JSON its own way (Python's `json.dumps` puts a
/// space after every colon; a map may come out in any order), so the server reads the
/// frame as JSON, not as bytes: the manager's exact spelling is recognised first (the
/// simulator's hot path), anything else by `JSONSerialization`. A JSON object whose
/// `"type"` is `subscribe`, `unsubscribe` or `resume` is a contract frame: with the fields
/// it needs it is obeyed, without them it is *unreadable* and the server answers it (an
/// error frame, counted), never ignores it. Everything else is an application command.
public enum ContractFrame: Equatable, Sendable {
    case subscribe(String)
    case unsubscribe(String)
    case resume(UInt64)

    /// What a text frame is to the contract.
    public enum Reading: Equatable, Sendable {
        /// A contract frame with the fields it needs.
        case frame(ContractFrame)
        /// A contract frame (its `"type"` says so) the server cannot obey, and why.
        case unreadable(String)
        /// Not a contract frame: the app's own command.
        case command
    }

    /// The contract frame `text` is, if it is one the server can obey.
    public init?(_ text: String) {
        guard case .frame(let frame) = Self.read(text) else { return nil }
        self = frame
    }

    /// Reads a text frame: a contract frame, an unreadable one, or a command.
    public static func read(_ text: String) -> Reading {
        if let exact = exactSpelling(text) { return .frame(exact) }
        guard text.utf8.first(where: { !Self.isJSONSpace($0) }) == UInt8(ascii: "{"),
            let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let type = object["type"] as? String
        else { return .command }
        switch type {
        case "subscribe", "unsubscribe":
            guard let topic = object["topic"] as? String else {
                return .unreadable(#"\#(type) needs "topic": a string"#)
            }
            return .frame(type == "subscribe" ? .subscribe(topic) : .unsubscribe(topic))
        case "resume":
            guard let after = object["after"].flatMap(Self.sequenceNumber) else {
                return .unreadable(#"resume needs "after": a non-negative integer (the last sequence number received)"#)
            }
            return .frame(.resume(after))
        default:
            return .command
        }
    }

    /// A JSON number that is a whole number from 0 to 2⁶⁴ − 1 (not a boolean, not a fraction).
    private static func sequenceNumber(_ value: Any) -> UInt64? {
        guard !(value is Bool), let number = value as? NSNumber else { return nil }
        switch String(cString: number.objCType) {
        case "d", "f":
            let double = number.doubleValue
            guard double >= 0, double.rounded() == double, double < 0x1p64 else { return nil }
            return UInt64(double)
        case "Q", "L", "I", "S", "C":
            return number.uint64Value
        default:
            return number.int64Value >= 0 ? UInt64(number.int64Value) : nil
        }
    }

    private static func isJSONSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// The manager's own spelling (`SubscriptionProtocol.json`), matched without a parser.
    private static func exactSpelling(_ text: String) -> ContractFrame? {
        if let topic = string(after: #"{"type":"subscribe","topic":"#, in: text) { return .subscribe(topic) }
        if let topic = string(after: #"{"type":"unsubscribe","topic":"#, in: text) { return .unsubscribe(topic) }
        if text.hasPrefix(#"{"type":"resume","after":"#), text.hasSuffix("}"),
            let after = UInt64(text.dropFirst(#"{"type":"resume","after":"#.count).dropLast())
        {
            return .resume(after)
        }
        return nil
    }

    /// The JSON string literal between `prefix` and the closing `}`, when it has no escapes
    /// (anything escaped goes through the JSON reader, which knows every escape).
    ///
    /// The bytes are scanned as bytes: `Substring.contains("\\")` with a string argument is
    /// Foundation's `range(of:)` through `NSString`, which was 1.5 % of an exploration's CPU
    /// (every subscribe the manager writes comes through here).
    private static func string(after prefix: String, in text: String) -> String? {
        guard text.hasPrefix(prefix), text.hasSuffix("\"}") else { return nil }
        let literal = text.dropFirst(prefix.count + 1).dropLast(2)
        guard !literal.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") }) else {
            return nil
        }
        return String(literal)
    }
}
