import Foundation
public import LiveConnection
import WebSocketTransport

/// How the proxy tells one client from another across its reconnections.
///
/// ```swift
/// ClientIdentity.of(resource: "/live?client=phone-a", headers: [], address: "127.0.0.1:53122")  // "phone-a"
/// ClientIdentity.of(resource: "/live", headers: [.init("x-livesim-client", "tab-2")], address: …)  // "tab-2"
/// ClientIdentity.of(resource: "/live", headers: [], address: "127.0.0.1:53122")  // "127.0.0.1:53122"
/// ```
///
/// In this order: the `client` query parameter of the request URL (percent-decoded), else the
/// `X-Livesim-Client` header, else the source address `host:port`. A client that sends
/// neither gets a new identity on every connection (its source port changes), so a fault
/// aimed at it reaches only the connection it is open on. A value that is empty, longer than
/// ``maximumLength`` bytes or not printable ASCII is not used (the next rule decides): an
/// identity is written in admin queries, logs and histories.
public enum ClientIdentity {
    /// The longest identity a client may give itself, in bytes.
    public static let maximumLength = 128

    /// The identity of a client from its request target, its headers (names lower-cased, as
    /// `UpgradeRequest` keeps them) and its source address.
    public static func of(resource: String, headers: [Endpoint.Header], address: String) -> String {
        if let fromQuery = queryValue(of: "client", in: resource), isUsable(fromQuery) { return fromQuery }
        if let fromHeader = headers.first(where: { $0.name.lowercased() == "x-livesim-client" })?.value,
            isUsable(fromHeader)
        {
            return fromHeader
        }
        return address
    }

    /// Whether a string can be an identity (also used to check the admin endpoint's `client=`).
    public static func isUsable(_ value: String) -> Bool {
        (1...maximumLength).contains(value.utf8.count) && value.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// The first value of a query parameter in a request target, percent-decoded.
    static func queryValue(of name: String, in resource: String) -> String? {
        guard let mark = resource.firstIndex(of: "?") else { return nil }
        for item in resource[resource.index(after: mark)...].split(separator: "&") {
            let key = item.prefix { $0 != "=" }
            guard key == name else { continue }
            return String(item.dropFirst(key.count + 1)).removingPercentEncoding
        }
        return nil
    }
}
