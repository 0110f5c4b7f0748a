import Foundation
import LiveConnection

/// A claims file: what a client promises, as `livesim judge --claims FILE` reads it.
///
/// ```swift
/// let file = try WireClaimsFile(json: #"{"backoff": {"policy": "exponential", "base": "1s", "cap": "60s"}}"#)
/// file.claims.backoff.name   // "exponential(base 1.0 seconds, cap 60.0 seconds)"
/// ```
///
/// Every key is optional; a key it does not know is an error (a typo must not pass a client).
/// What a key leaves out is the seed documents' rule, as ``WireClaimsFile/defaults`` states
/// it: full-jitter backoff (base 1 s, cap 30 s), P + T = 35 s, connect timeout 10 s, failures
/// counted until a heartbeat is answered, no resume, terminal 1008 and 4003 (and HTTP 403),
/// refresh on 4001 (and HTTP 401). `docs/wire-history.md` lists the keys.
public struct WireClaimsFile: Sendable {
    public var claims: WireClaims
    /// Topics every client subscribes to on every socket (none by default: the resubscribe rule then asks nothing).
    public var topics: [String]

    /// The seed documents' rules for a client of the default configuration, without resume.
    public static var defaults: WireClaims {
        var claims = WireClaims(ConnectionConfiguration(), specification: .seedDocuments)
        claims.resumes = false
        return claims
    }

    public init(claims: WireClaims = Self.defaults, topics: [String] = []) {
        self.claims = claims
        self.topics = topics
    }

    /// Reads a claims file's text; the error names the key and what is wrong with it.
    public init(json: String) throws(ClaimsError) {
        let object: [String: Any]
        do {
            guard let parsed = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
                throw ClaimsError("a claims file is one JSON object")
            }
            object = parsed
        } catch let error as ClaimsError {
            throw error
        } catch {
            throw ClaimsError("not JSON: \((error as NSError).userInfo[NSDebugDescriptionErrorKey] ?? "unreadable")")
        }
        let known: Set<String> = [
            "backoff", "deadPeerBound", "connectTimeout", "backoffResets", "retryLimit", "resumes",
            "terminalCloseCodes", "terminalHandshakeStatuses", "refreshCloseCodes", "refreshHandshakeStatuses",
            "topics",
        ]
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw ClaimsError("unknown key \"\(unknown)\" (known: \(known.sorted().joined(separator: ", ")))")
        }
        var claims = Self.defaults
        if let backoff = object["backoff"] { claims.backoff = ClaimedBackoff(try Self.policy(backoff)) }
        if let value = object["deadPeerBound"] {
            claims.deadPeerBound = try Self.duration(value, "deadPeerBound", in: .milliseconds(1)...(.seconds(86_400)))
        }
        if let value = object["connectTimeout"] {
            claims.connectTimeout = try Self.duration(
                value, "connectTimeout", in: .milliseconds(1)...(.seconds(86_400)))
        }
        switch object["backoffResets"] as? String {
        case nil where object["backoffResets"] == nil: break
        case "when-open": claims.backoffResets = .whenOpen
        case "when-a-heartbeat-is-answered": claims.backoffResets = .whenAHeartbeatIsAnswered
        default: throw ClaimsError("\"backoffResets\" is \"when-open\" or \"when-a-heartbeat-is-answered\"")
        }
        if let value = object["retryLimit"], !(value is NSNull) {
            claims.retryLimit = try Self.integer(value, "retryLimit", in: 1...1_000_000)
        }
        if let value = object["resumes"] {
            guard let resumes = value as? Bool else { throw ClaimsError("\"resumes\" is true or false") }
            claims.resumes = resumes
        }
        if let value = object["terminalCloseCodes"] {
            claims.terminalCloseCodes = try Self.codes(value, "terminalCloseCodes")
        }
        if let value = object["refreshCloseCodes"] {
            claims.refreshCloseCodes = try Self.codes(value, "refreshCloseCodes")
        }
        if let value = object["terminalHandshakeStatuses"] {
            claims.terminalHandshakeStatuses = try Self.statuses(value, "terminalHandshakeStatuses")
        }
        if let value = object["refreshHandshakeStatuses"] {
            claims.refreshHandshakeStatuses = try Self.statuses(value, "refreshHandshakeStatuses")
        }
        var topics: [String] = []
        if let value = object["topics"] {
            guard let list = value as? [String], list.count <= 1000 else {
                throw ClaimsError("\"topics\" is a list of at most 1000 strings")
            }
            topics = list
        }
        self.init(claims: claims, topics: topics)
    }

    /// A backoff policy: `{"policy": NAME, …}` with the policy's parameters.
    static func policy(_ value: Any) throws(ClaimsError) -> BackoffPolicy {
        guard let object = value as? [String: Any], let name = object["policy"] as? String else {
            throw ClaimsError(
                "\"backoff\" is an object with a \"policy\" (full-jitter, equal-jitter, decorrelated-jitter, "
                    + "exponential, proportional-jitter, table)")
        }
        let delays: ClosedRange<Duration> = .zero...(.seconds(86_400))
        func field(_ key: String, _ fallback: Duration) throws(ClaimsError) -> Duration {
            guard let value = object[key] else { return fallback }
            return try duration(value, "backoff.\(key)", in: delays)
        }
        let allowed: Set<String>
        let policy: BackoffPolicy
        switch name {
        case "full-jitter", "equal-jitter", "decorrelated-jitter", "exponential":
            allowed = ["policy", "base", "cap"]
            let base = try field("base", .seconds(1))
            let cap = try field("cap", .seconds(30))
            guard base > .zero, cap >= base else {
                throw ClaimsError("backoff: base must be above 0 and cap at least base")
            }
            policy =
                switch name {
                case "full-jitter": .fullJitter(base: base, cap: cap)
                case "equal-jitter": .equalJitter(base: base, cap: cap)
                case "decorrelated-jitter": .decorrelatedJitter(base: base, cap: cap)
                default: .exponential(base: base, cap: cap)
                }
        case "proportional-jitter":
            allowed = ["policy", "initial", "multiplier", "jitter", "maximum"]
            let initial = try field("initial", .seconds(1))
            let maximum = try field("maximum", .seconds(30))
            let multiplier = try number(object["multiplier"] ?? 2.0, "backoff.multiplier", in: 1...100)
            let jitter = try number(object["jitter"] ?? 0.5, "backoff.jitter", in: 0...1)
            guard initial > .zero, maximum >= initial else {
                throw ClaimsError("backoff: initial must be above 0 and maximum at least initial")
            }
            policy = .proportionalJitter(initial: initial, multiplier: multiplier, jitter: jitter, maximum: maximum)
        case "table":
            allowed = ["policy", "delays"]
            guard let list = object["delays"] as? [Any], (1...100).contains(list.count) else {
                throw ClaimsError("backoff: a table has \"delays\", a list of 1 to 100 durations")
            }
            var table: [Duration] = []
            for item in list { table.append(try duration(item, "backoff.delays", in: delays)) }
            policy = .table(table)
        default:
            throw ClaimsError(
                "backoff: unknown policy \"\(name)\" (full-jitter, equal-jitter, decorrelated-jitter, "
                    + "exponential, proportional-jitter, table)")
        }
        if let extra = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw ClaimsError(
                "backoff: \(name) takes no \"\(extra)\" (it takes \(allowed.sorted().joined(separator: ", ")))")
        }
        return policy
    }

    /// A duration: "250ms", "1.5s", "2m", "1h", or a number of seconds.
    static func duration(_ value: Any, _ key: String, in range: ClosedRange<Duration>) throws(ClaimsError) -> Duration {
        let problem = ClaimsError(
            "\"\(key)\" is a duration such as \"250ms\", \"1.5s\", \"2m\" or a number of seconds, "
                + "\(range.lowerBound.formatted()) to \(range.upperBound.formatted())")
        var seconds: Double
        if let number = value as? NSNumber {
            seconds = number.doubleValue
        } else if let text = value as? String {
            let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
            guard let (suffix, scale) = units.first(where: { text.hasSuffix($0.0) }),
                let amount = Double(text.dropLast(suffix.count))
            else { throw problem }
            seconds = amount * scale
        } else {
            throw problem
        }
        guard seconds.isFinite else { throw problem }
        let duration = Duration.nanoseconds(Int64((seconds * 1e9).rounded()))
        guard range.contains(duration) else { throw problem }
        return duration
    }

    static func number(_ value: Any, _ key: String, in range: ClosedRange<Double>) throws(ClaimsError) -> Double {
        guard let number = value as? NSNumber, range.contains(number.doubleValue) else {
            throw ClaimsError("\"\(key)\" is a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number.doubleValue
    }

    static func integer(_ value: Any, _ key: String, in range: ClosedRange<Int>) throws(ClaimsError) -> Int {
        guard let number = value as? NSNumber, let int = Int(exactly: number.doubleValue),
            range.contains(int)
        else { throw ClaimsError("\"\(key)\" is an integer from \(range.lowerBound) to \(range.upperBound)") }
        return int
    }

    static func codes(_ value: Any, _ key: String) throws(ClaimsError) -> Set<CloseCode> {
        guard let list = value as? [Any] else { throw ClaimsError("\"\(key)\" is a list of close codes (1000–4999)") }
        var codes: Set<CloseCode> = []
        for item in list { codes.insert(CloseCode(UInt16(try integer(item, key, in: 1000...4999)))) }
        return codes
    }

    static func statuses(_ value: Any, _ key: String) throws(ClaimsError) -> Set<Int> {
        guard let list = value as? [Any] else { throw ClaimsError("\"\(key)\" is a list of HTTP statuses (100–599)") }
        var statuses: Set<Int> = []
        for item in list { statuses.insert(try integer(item, key, in: 100...599)) }
        return statuses
    }
}

/// A claims file that cannot be read, and why.
public struct ClaimsError: Error, Hashable, Sendable, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
