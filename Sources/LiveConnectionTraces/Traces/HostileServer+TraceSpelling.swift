import LiveConnection

extension HostileServer {
    /// The behaviour as words after `hostile` on a trace line.
    ///
    /// ```swift
    /// HostileServer.acceptThenClose(.internalError).traceWords   // accept-then-close code=1011
    /// HostileServer.slowHandshake(.seconds(8)).traceWords        // slow-handshake 8000ms
    /// HostileServer.malformedFrame.traceWords                    // malformed-frame
    /// ```
    package var traceWords: String {
        switch self {
        case .acceptThenClose(let code): "accept-then-close code=\(code.rawValue)"
        case .malformedFrame: "malformed-frame"
        case .slowHandshake(let delay): "slow-handshake \(delay.traceFormatted)"
        }
    }

    /// Reads what ``traceWords`` wrote, or `off` (nil: healthy again).
    static func parse(_ fields: inout TraceFields) throws(LineProblem) -> HostileServer? {
        let kinds = "accept-then-close, malformed-frame, slow-handshake or off"
        switch try fields.positional(kinds) {
        case "off":
            return nil
        case "accept-then-close":
            let code = try TraceNumber.integer(try fields.keyed("code"), "a close code (0–65535)", as: UInt16.self)
            return .acceptThenClose(CloseCode(code))
        case "malformed-frame":
            return .malformedFrame
        case "slow-handshake":
            let delay = try TraceToken.duration(try fields.positional("a duration"))
            guard delay > .zero else { throw LineProblem("a slow handshake's delay must be positive") }
            return .slowHandshake(delay)
        case let other:
            throw LineProblem("'hostile' takes \(kinds), not '\(other)'")
        }
    }
}
