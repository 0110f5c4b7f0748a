import Foundation

// A record as one JSON object on one line: "t" (seconds since the origin, six decimals) and
// "e" (the event's name) first, so a reader scanning the file sees when and what; the
// fields after them depend on the event (docs/wire-history.md lists them).
extension WireHistoryRecord {
    /// The record as one line of JSON (no newline).
    public var line: String {
        var fields: [(String, JSONValue)] = [("t", .raw(Self.seconds(at))), ("e", .string(event.name))]
        fields += event.fields
        return JSONValue.object(fields)
    }

    /// Reads one line; the error says which field is wrong and why.
    public init(line: String) throws(WireHistoryError.Reason) {
        let object = try JSONValue.parseObject(line)
        guard let seconds = object["t"] as? NSNumber else {
            throw .init("no \"t\" (seconds since the origin, a number)")
        }
        let value = seconds.doubleValue
        guard value.isFinite, value >= 0, value < 1e9 else { throw .init("\"t\" is \(value): not 0 to 1e9 seconds") }
        let micros = Int64((value * 1_000_000).rounded())
        guard let name = object["e"] as? String else { throw .init("no \"e\" (the event's name, a string)") }
        self.init(at: .microseconds(micros), event: try WireHistoryEvent(name: name, fields: Fields(object)))
    }

    /// ``at`` as the file writes it: seconds with six decimals ("12.345678").
    public var secondsText: String { Self.seconds(at) }

    /// "12.345678": seconds with six decimals, from a non-negative duration.
    static func seconds(_ duration: Duration) -> String {
        let micros = max(
            0, duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000)
        let fraction = String(micros % 1_000_000)
        return "\(micros / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }
}

extension WireHistoryEvent {
    /// The name in the line's `"e"` field.
    public var name: String {
        switch self {
        case .attempt: "attempt"
        case .attemptFailed: "attempt-failed"
        case .opened: "open"
        case .clientMessage: "client-message"
        case .clientPing: "client-ping"
        case .pong: "pong"
        case .serverMessage: "server-message"
        case .clientClose: "client-close"
        case .clientEnd: "client-end"
        case .serverClose: "server-close"
        case .serverReset: "server-reset"
        case .idleDrop: "idle-drop"
        case .serverDone: "server-done"
        case .fault: "fault"
        case .end: "end"
        }
    }

    var fields: [(String, JSONValue)] {
        switch self {
        case .attempt(let connection, let client, let path):
            [("conn", .int(connection)), ("client", .string(client)), ("path", .string(path))]
        case .attemptFailed(let connection, let reason): [("conn", .int(connection)), ("reason", .string(reason))]
        case .opened(let connection), .clientPing(let connection), .pong(let connection), .clientEnd(let connection),
            .idleDrop(let connection), .serverDone(let connection):
            [("conn", .int(connection))]
        case .clientMessage(let connection, let binary, let size, let text):
            [("conn", .int(connection)), ("op", .string(binary ? "binary" : "text")), ("size", .int(size))]
                + (text.map { [("text", JSONValue.string($0))] } ?? [])
        case .serverMessage(let connection, let binary, let size):
            [("conn", .int(connection)), ("op", .string(binary ? "binary" : "text")), ("size", .int(size))]
        case .clientClose(let connection, let code, let reason):
            [("conn", .int(connection)), ("code", code.map { .int($0) } ?? .null), ("reason", .string(reason))]
        case .serverClose(let connection, let code, let reason):
            [("conn", .int(connection)), ("code", .int(code)), ("reason", .string(reason))]
        case .serverReset(let connection, let reason): [("conn", .int(connection)), ("reason", .string(reason))]
        case .fault(let fault, let client):
            [("fault", .string(fault.name))] + fault.fields + (client.map { [("client", JSONValue.string($0))] } ?? [])
        case .end: []
        }
    }

    init(name: String, fields: Fields) throws(WireHistoryError.Reason) {
        switch name {
        case "attempt":
            self = .attempt(
                connection: try fields.connection(), client: try fields.string("client"),
                path: try fields.string("path"))
        case "attempt-failed":
            self = .attemptFailed(connection: try fields.connection(), reason: try fields.string("reason"))
        case "open": self = .opened(connection: try fields.connection())
        case "client-message":
            self = .clientMessage(
                connection: try fields.connection(), binary: try fields.binary(), size: try fields.integer("size"),
                text: try fields.optionalString("text"))
        case "client-ping": self = .clientPing(connection: try fields.connection())
        case "pong": self = .pong(connection: try fields.connection())
        case "server-message":
            self = .serverMessage(
                connection: try fields.connection(), binary: try fields.binary(), size: try fields.integer("size"))
        case "client-close":
            self = .clientClose(
                connection: try fields.connection(), code: try fields.closeCode("code", optional: true),
                reason: try fields.optionalString("reason") ?? "")
        case "client-end": self = .clientEnd(connection: try fields.connection())
        case "server-close":
            self = .serverClose(
                connection: try fields.connection(), code: try fields.closeCode("code", optional: false)!,
                reason: try fields.optionalString("reason") ?? "")
        case "server-reset":
            self = .serverReset(connection: try fields.connection(), reason: try fields.string("reason"))
        case "idle-drop": self = .idleDrop(connection: try fields.connection())
        case "server-done": self = .serverDone(connection: try fields.connection())
        case "fault":
            let fault = try WireFault(fields)
            let client = try fields.optionalString("client")
            if let client {
                guard fault.canBeScoped else {
                    throw .init(
                        "\"client\": a \(fault.name) fault is the whole server's, it cannot be aimed at one client")
                }
                guard (1...128).contains(client.utf8.count) else {
                    throw .init("\"client\" must be 1 to 128 bytes (got \(client.utf8.count))")
                }
            }
            self = .fault(fault, client: client)
        case "end": self = .end
        default:
            throw .init(
                "unknown event \"\(name)\" (known: attempt, attempt-failed, open, client-message, client-ping, pong, "
                    + "server-message, client-close, client-end, server-close, server-reset, idle-drop, server-done, fault, end)"
            )
        }
    }
}

extension WireFault {
    var fields: [(String, JSONValue)] {
        switch self {
        case .freeze, .thaw, .restart: []
        case .refuse(let on), .hang(let on): [("on", .bool(on))]
        case .handshakeStatus(let status): [("status", status.map { .int($0) } ?? .null)]
        case .acceptThenClose(let code, let reason):
            [("code", code.map { .int($0) } ?? .null), ("reason", .string(reason))]
        case .closeAll(let code, let reason): [("code", .int(code)), ("reason", .string(reason))]
        case .resetAll(let handshakes): [("handshakes", .bool(handshakes))]
        case .idleTimeout(let timeout):
            [("seconds", timeout.map { .raw(WireHistoryRecord.seconds($0)) } ?? .null)]
        case .latency(let latency): [("seconds", .raw(WireHistoryRecord.seconds(latency)))]
        case .slice(let bytes, let pause):
            [("bytes", bytes.map { .int($0) } ?? .null), ("seconds", .raw(WireHistoryRecord.seconds(pause)))]
        }
    }

    init(_ fields: Fields) throws(WireHistoryError.Reason) {
        let name = try fields.string("fault")
        switch name {
        case "freeze": self = .freeze
        case "thaw": self = .thaw
        case "restart": self = .restart
        case "refuse": self = .refuse(try fields.bool("on"))
        case "hang": self = .hang(try fields.bool("on"))
        case "handshake-status":
            let status = try fields.optionalInteger("status")
            if let status, !(100...599).contains(status) || status == 101 {
                throw .init("\"status\" \(status) is not an HTTP refusal status (100…599, not 101)")
            }
            self = .handshakeStatus(status)
        case "accept-then-close":
            self = .acceptThenClose(
                code: try fields.closeCode("code", optional: true), reason: try fields.optionalString("reason") ?? "")
        case "close-all":
            self = .closeAll(
                code: try fields.closeCode("code", optional: false)!, reason: try fields.optionalString("reason") ?? "")
        case "reset-all": self = .resetAll(handshakes: try fields.bool("handshakes"))
        case "idle-timeout": self = .idleTimeout(try fields.optionalSeconds("seconds"))
        case "latency":
            guard let latency = try fields.optionalSeconds("seconds") else { throw .init("\"seconds\" is missing") }
            self = .latency(latency)
        case "slice":
            let bytes = try fields.optionalInteger("bytes")
            if let bytes, bytes < 1 { throw .init("\"bytes\" \(bytes) is not a slice size (at least 1, or null)") }
            self = .slice(bytes: bytes, pause: try fields.optionalSeconds("seconds") ?? .zero)
        default:
            throw .init(
                "unknown fault \"\(name)\" (known: freeze, thaw, refuse, handshake-status, hang, accept-then-close, "
                    + "close-all, reset-all, restart, idle-timeout, latency, slice)")
        }
    }
}
