import Foundation

/// The first line of a wire history: what it is, its version, the server that recorded it,
/// the fault seed, and when its clock started.
///
/// ```swift
/// let header = WireHistoryHeader(server: ["mode": "live", "url": "ws://127.0.0.1:9002"], faults: nil,
///                                origin: "2026-12-06T02:00:00Z")
/// header.line   // {"history":"livesim-wire","version":2,"origin":"2026-12-06T02:00:00Z",…}
/// ```
///
/// Every record's `t` counts from the origin on a monotonic clock: `origin` (wall-clock,
/// UTC) only says when that was, for a reader.
public struct WireHistoryHeader: Hashable, Sendable {
    /// The version this build writes. Version 2 added fault records aimed at one client (a
    /// reader of version 1 would ignore the unknown `client` key and read such a fault as the
    /// whole server's) and the `slice` fault; a version-1 history has neither, so it is read too.
    public static let currentVersion = 2
    /// The versions this build reads.
    public static let readableVersions = 1...currentVersion
    public static let formatName = "livesim-wire"

    public var version: Int
    /// The server's configuration as it was at the origin (mode, url, idle timeout, …):
    /// strings and numbers by name.
    public var server: [String: String]
    /// The fault schedule, when a seed drew one: its seed and profile.
    public var faults: FaultSchedule?
    /// When `t` = 0 was, as ISO 8601 in UTC.
    public var origin: String

    /// A seeded fault schedule: enough to run it again.
    public struct FaultSchedule: Hashable, Sendable {
        public var seed: UInt64
        public var profile: String

        public init(seed: UInt64, profile: String) {
            self.seed = seed
            self.profile = profile
        }
    }

    public init(version: Int = currentVersion, server: [String: String], faults: FaultSchedule?, origin: String) {
        self.version = version
        self.server = server
        self.faults = faults
        self.origin = origin
    }

    /// The header as one line of JSON.
    public var line: String {
        let server = JSONValue.object(server.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })
        let faults = self.faults.map {
            JSONValue.object([("seed", .raw("\($0.seed)")), ("profile", .string($0.profile))])
        }
        return JSONValue.object([
            ("history", .string(Self.formatName)), ("version", .int(version)), ("origin", .string(origin)),
            ("server", .raw(server)), ("faults", faults.map { .raw($0) } ?? .null),
        ])
    }

    /// Reads a header line; a history of a later version is refused, with the version named.
    public init(line: String) throws(WireHistoryError.Reason) {
        let object = try JSONValue.parseObject(line)
        guard object["history"] as? String == Self.formatName else {
            throw .init("not a wire history: the first line must be a header with \"history\":\"\(Self.formatName)\"")
        }
        let fields = Fields(object)
        let version = try fields.integer("version")
        guard Self.readableVersions.contains(version) else {
            throw .init(
                "version \(version); this livesim reads versions \(Self.readableVersions.lowerBound) to \(Self.currentVersion)"
            )
        }
        guard let server = object["server"] as? [String: Any] else { throw .init("\"server\" is not an object") }
        var described: [String: String] = [:]
        for (key, value) in server {
            described[key] = (value as? String) ?? (value is NSNull ? "" : "\(value)")
        }
        var faults: FaultSchedule?
        if let schedule = object["faults"] as? [String: Any] {
            guard let number = schedule["seed"] as? NSNumber, number.doubleValue >= 0,
                number.doubleValue == number.doubleValue.rounded(),
                let profile = schedule["profile"] as? String
            else { throw .init("\"faults\" needs a \"seed\" (a non-negative integer) and a \"profile\" (a string)") }
            faults = FaultSchedule(seed: number.uint64Value, profile: profile)
        } else if let value = object["faults"], !(value is NSNull) {
            throw .init("\"faults\" is not an object or null")
        }
        self.init(version: version, server: described, faults: faults, origin: try fields.string("origin"))
    }
}
