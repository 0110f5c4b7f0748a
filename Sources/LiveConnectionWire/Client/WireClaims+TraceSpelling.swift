import LiveConnection

extension WireClaims {
    /// The claims as a trace's `claims:` line: what the judge held the client to, so a
    /// reader of a wire trace sees the client's promises, not the manager's configuration.
    ///
    /// ```swift
    /// WireClaims(backoff: ClaimedBackoff(.fullJitter()), deadPeerBound: .seconds(35)).traceDescription
    /// // backoff="full jitter …" backoff-max=30000ms dead-peer=35000ms connect-timeout=10000ms resets=when-open …
    /// ```
    ///
    /// Key=value words in a fixed order (sets sorted), so the line is the same on every run.
    public var traceDescription: String {
        func codes<T: Comparable & CustomStringConvertible>(_ set: Set<T>) -> String {
            set.isEmpty ? "none" : set.sorted().map(\.description).joined(separator: ",")
        }
        let resets =
            switch backoffResets {
            case .whenOpen: "when-open"
            case .whenAHeartbeatIsAnswered: "when-a-heartbeat-is-answered"
            }
        return [
            "backoff=\(Self.quoted(backoff.name))",
            "backoff-max=\(backoff.maximum.traceFormatted)",
            "dead-peer=\(deadPeerBound.traceFormatted)",
            "connect-timeout=\(connectTimeout.traceFormatted)",
            "resets=\(resets)",
            "retry-limit=\(retryLimit.map(String.init) ?? "none")",
            "resumes=\(resumes)",
            "terminal-close-codes=\(codes(Set(terminalCloseCodes.map(\.rawValue))))",
            "terminal-handshake-statuses=\(codes(terminalHandshakeStatuses))",
            "refresh-close-codes=\(codes(Set(refreshCloseCodes.map(\.rawValue))))",
            "refresh-handshake-statuses=\(codes(refreshHandshakeStatuses))",
        ].joined(separator: " ")
    }

    /// A name in double quotes, on one line: the header is line-based, and a client's
    /// backoff name is free text.
    static func quoted(_ text: String) -> String {
        let scalars = text.unicodeScalars.map { scalar -> String in
            switch scalar {
            case "\"": "'"
            case _
            where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}"
                || scalar == "\u{2029}" || scalar == "\u{FEFF}":
                " "
            default: String(scalar)
            }
        }
        return "\"" + scalars.joined() + "\""
    }
}
