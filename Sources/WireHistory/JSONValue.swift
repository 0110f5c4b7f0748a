import Foundation
import LiveConnection

/// The few JSON values a history line holds, written by hand so that the keys keep their
/// order ("t" and "e" first) and a time keeps its six decimals; read with Foundation.
enum JSONValue {
    case string(String)
    case int(Int)
    case bool(Bool)
    case null
    /// Already JSON (a number formatted by the caller).
    case raw(String)

    var text: String {
        switch self {
        case .string(let string): string.jsonQuoted
        case .int(let int): "\(int)"
        case .bool(let bool): bool ? "true" : "false"
        case .null: "null"
        case .raw(let raw): raw
        }
    }

    static func object(_ fields: [(String, JSONValue)]) -> String {
        "{" + fields.map { $0.0.jsonQuoted + ":" + $0.1.text }.joined(separator: ",") + "}"
    }

    /// The line as a JSON object, or why it is not one.
    static func parseObject(_ line: String) throws(WireHistoryError.Reason) -> [String: Any] {
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: Data(line.utf8), options: [])
        } catch {
            throw .init("not JSON: \((error as NSError).userInfo[NSDebugDescriptionErrorKey] ?? "unreadable")")
        }
        guard let object = parsed as? [String: Any] else { throw .init("not a JSON object") }
        return object
    }
}

/// A line's fields, with the checks every reader of them needs.
struct Fields {
    let object: [String: Any]

    init(_ object: [String: Any]) { self.object = object }

    func string(_ key: String) throws(WireHistoryError.Reason) -> String {
        guard let value = try optionalString(key) else { throw .init("\"\(key)\" is missing") }
        return value
    }

    func optionalString(_ key: String) throws(WireHistoryError.Reason) -> String? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard let string = value as? String else { throw .init("\"\(key)\" is not a string") }
        return string
    }

    func bool(_ key: String) throws(WireHistoryError.Reason) -> Bool {
        guard let value = object[key] as? Bool else { throw .init("\"\(key)\" is not true or false") }
        return value
    }

    func optionalInteger(_ key: String) throws(WireHistoryError.Reason) -> Int? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard let number = value as? NSNumber, let int = Int(exactly: number.doubleValue),
            abs(int) < 1 << 53
        else { throw .init("\"\(key)\" is not an integer") }
        return int
    }

    func integer(_ key: String) throws(WireHistoryError.Reason) -> Int {
        guard let value = try optionalInteger(key) else { throw .init("\"\(key)\" is missing") }
        guard value >= 0 else { throw .init("\"\(key)\" is \(value): below 0") }
        return value
    }

    func connection() throws(WireHistoryError.Reason) -> Int {
        let value = try integer("conn")
        guard value >= 1 else { throw .init("\"conn\" is \(value): connections are numbered from 1") }
        return value
    }

    func binary() throws(WireHistoryError.Reason) -> Bool {
        switch try string("op") {
        case "text": false
        case "binary": true
        case let other: throw .init("\"op\" is \"\(other)\": text or binary")
        }
    }

    func closeCode(_ key: String, optional: Bool) throws(WireHistoryError.Reason) -> Int? {
        guard let code = try optionalInteger(key) else {
            if optional { return nil }
            throw .init("\"\(key)\" is missing")
        }
        guard (1000...4999).contains(code) else { throw .init("\"\(key)\" \(code) is not a close code (1000…4999)") }
        return code
    }

    func optionalSeconds(_ key: String) throws(WireHistoryError.Reason) -> Duration? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard let number = value as? NSNumber, number.doubleValue.isFinite, number.doubleValue >= 0,
            number.doubleValue < 1e9
        else { throw .init("\"\(key)\" is not a number of seconds, 0 to 1e9") }
        return .microseconds(Int64((number.doubleValue * 1_000_000).rounded()))
    }
}
