import LiveConnection

extension SimulationAction {
    /// The action as words on a trace line, e.g. `close code=4001 reason="token expired"`.
    ///
    /// ```swift
    /// SimulationAction.resetConnection.traceWords          // reset
    /// SimulationAction.subscribe("loans").traceWords        // subscribe loans
    /// SimulationAction.setIdleTimeout(nil).traceWords       // idle-timeout off
    /// ```
    ///
    /// `docs/trace-format.md` lists every spelling; ``init(traceWords:)`` reads them back.
    public var traceWords: String {
        switch self {
        case .refuseConnections(let on): "refuse-connections \(on ? "on" : "off")"
        case .failHandshakes(let status): "fail-handshakes " + (status.map { "status=\($0)" } ?? "off")
        case .hangHandshakes(let on): "hang-handshakes \(on ? "on" : "off")"
        case .broadcast(let topic, let text): "broadcast topic=\(TraceToken.word(topic)) text=\(TraceToken.word(text))"
        case .closeConnection(let code, let reason): "close code=\(code.rawValue) reason=\(TraceToken.word(reason))"
        case .resetConnection: "reset"
        case .freeze: "freeze"
        case .thaw: "thaw"
        case .setLatency(let latency): "latency \(latency.traceFormatted)"
        case .restartServer: "restart"
        case .setIdleTimeout(let timeout): "idle-timeout " + (timeout.map(\.traceFormatted) ?? "off")
        case .hostile(let behaviour): "hostile " + (behaviour?.traceWords ?? "off")
        case .deliverStale(let callback, let linger):
            "stale \(callback.rawValue)" + (linger == .zero ? "" : " after=\(linger.traceFormatted)")
        case .duplicateNextCallback: "duplicate-next-callback"
        case .delaySendCompletion: "delay-send-completion"
        // The trace tokens are the format's: `background` and `foreground`, not the case's name.
        case .setForeground(let foreground): foreground ? "foreground" : "background"
        case .connect(let endpoint): "connect endpoint=\(endpoint)"
        case .disconnect: "disconnect"
        case .disconnectWith(let code, let reason): "disconnect code=\(code.rawValue) reason=\(TraceToken.word(reason))"
        case .send(let text): "send text=\(TraceToken.word(text))"
        case .ping(let timeout): "ping timeout=\(timeout.traceFormatted)"
        case .subscribe(let topic): "subscribe \(TraceToken.word(topic))"
        case .unsubscribe(let topic): "unsubscribe \(TraceToken.word(topic))"
        case .path(let viable): "path \(viable ? "viable" : "unviable")"
        }
    }

    /// Reads the spelling of ``traceWords``.
    ///
    /// - Throws: ``TraceError/malformedLine(number:text:reason:)`` with line 0, when the
    ///   words are read on their own; the trace parser puts its own line number in.
    public init(traceWords: String) throws(TraceError) {
        do throws(LineProblem) {
            self = try Self.parse(try TraceToken.tokenize(traceWords))
        } catch {
            throw .malformedLine(number: 0, text: traceWords, reason: error.reason)
        }
    }

    /// The action words a schedule line may start with, in the order the docs list them.
    public static let traceVerbs = [
        "refuse-connections", "fail-handshakes", "hang-handshakes", "broadcast", "close", "reset", "freeze",
        "thaw", "latency", "restart", "idle-timeout", "hostile", "stale", "duplicate-next-callback",
        "delay-send-completion", "background", "foreground", "connect", "disconnect", "send", "ping", "subscribe",
        "unsubscribe", "path",
    ]

    static func parse(_ tokens: [TraceToken]) throws(LineProblem) -> SimulationAction {
        guard let verbToken = tokens.first, verbToken.key == nil else { throw LineProblem("expected an action") }
        let verb = verbToken.value
        var fields = TraceFields(Array(tokens.dropFirst()), context: "'\(verb)'")
        let action: SimulationAction
        switch verb {
        case "refuse-connections":
            action = .refuseConnections(try TraceNumber.bool(try fields.positional("on or off"), "on or off"))
        case "fail-handshakes":
            if let off = try? fields.positional("off") {
                guard off == "off" else { throw LineProblem("'fail-handshakes' takes status=N or off, not '\(off)'") }
                action = .failHandshakes(status: nil)
            } else {
                let status = try TraceNumber.integer(try fields.keyed("status"), "an HTTP status", as: Int.self)
                guard (100...999).contains(status) else { throw LineProblem("\(status) is not an HTTP status") }
                action = .failHandshakes(status: status)
            }
        case "hang-handshakes":
            action = .hangHandshakes(try TraceNumber.bool(try fields.positional("on or off"), "on or off"))
        case "broadcast":
            let topic = try fields.keyed("topic")
            action = .broadcast(topic: topic, text: try fields.keyed("text"))
        case "close":
            let code = try TraceNumber.integer(try fields.keyed("code"), "a close code (0–65535)", as: UInt16.self)
            action = .closeConnection(code: CloseCode(code), reason: try fields.keyed("reason"))
        case "reset": action = .resetConnection
        case "freeze": action = .freeze
        case "thaw": action = .thaw
        case "latency":
            let latency = try TraceToken.duration(try fields.positional("a duration"))
            guard latency >= .zero else { throw LineProblem("a latency cannot be negative") }
            action = .setLatency(latency)
        case "restart": action = .restartServer
        case "idle-timeout":
            let value = try fields.positional("a duration or off")
            if value == "off" {
                action = .setIdleTimeout(nil)
            } else {
                let timeout = try TraceToken.duration(value)
                guard timeout > .zero else { throw LineProblem("an idle timeout must be positive (or off)") }
                action = .setIdleTimeout(timeout)
            }
        case "hostile":
            action = .hostile(try HostileServer.parse(&fields))
        case "stale":
            let kind = try fields.positional("a callback kind")
            guard let callback = StaleCallback(rawValue: kind) else {
                throw LineProblem(
                    "'\(kind)' is not a stale callback (\(StaleCallback.allCases.map(\.rawValue).joined(separator: ", ")))"
                )
            }
            var linger = Duration.zero
            if let value = fields.optionalKeyed("after") {
                guard callback != .open else {
                    throw LineProblem("'stale open' takes no after=… (a given-up handshake completes at once)")
                }
                linger = try TraceToken.duration(value)
                guard linger >= .zero else { throw LineProblem("a late callback's after=… cannot be negative") }
            }
            action = .deliverStale(callback, after: linger)
        case "duplicate-next-callback": action = .duplicateNextCallback
        case "delay-send-completion": action = .delaySendCompletion
        case "background": action = .setForeground(false)
        case "foreground": action = .setForeground(true)
        case "connect":
            let endpoint = try TraceNumber.integer(try fields.keyed("endpoint"), "an endpoint index", as: Int.self)
            guard endpoint >= 0 else { throw LineProblem("an endpoint index cannot be negative") }
            action = .connect(endpoint: endpoint)
        case "disconnect":
            if let code = fields.optionalKeyed("code") {
                let code = try TraceNumber.integer(code, "a close code (0–65535)", as: UInt16.self)
                action = .disconnectWith(code: CloseCode(code), reason: try fields.keyed("reason"))
            } else {
                action = .disconnect
            }
        case "send": action = .send(text: try fields.keyed("text"))
        case "ping":
            let timeout = try TraceToken.duration(try fields.keyed("timeout"))
            guard timeout > .zero else { throw LineProblem("a ping timeout must be above 0") }
            action = .ping(timeout: timeout)
        case "subscribe": action = .subscribe(try fields.positional("a topic"))
        case "unsubscribe": action = .unsubscribe(try fields.positional("a topic"))
        case "path":
            let word = try fields.positional("viable or unviable")
            guard word == "viable" || word == "unviable" else {
                throw LineProblem("'path' takes viable or unviable, not '\(word)'")
            }
            action = .path(viable: word == "viable")
        default:
            throw LineProblem("unknown action '\(verb)' (known: \(traceVerbs.joined(separator: ", ")))")
        }
        try fields.finish()
        return action
    }
}

extension ScheduledAction {
    /// One schedule line: `<virtual time> <action words>`, e.g. `3000ms reset`.
    public var traceLine: String { "\(at.traceFormatted) \(action.traceWords)" }
}
