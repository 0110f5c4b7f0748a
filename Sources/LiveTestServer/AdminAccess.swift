import Foundation
import WebSocketTransport

/// Who may drive the admin endpoint: the `Host` and `Origin` rule and the optional token.
///
/// ```swift
/// let access = AdminAccess(host: "127.0.0.1", port: 9011, token: nil)
/// access.accepts(authority: "localhost:9011")    // true: bound to loopback
/// access.accepts(authority: "evil.example:9011") // false: a rebound name
/// ```
///
/// The endpoint is reached by address, never by a name of its own, so a `Host` that names
/// anything else is a browser sent there by a page (DNS rebinding), and an `Origin` that is
/// not the endpoint's own is a page posting across origins (CSRF). Both are refused with 403.
struct AdminAccess: Sendable {
    /// The `host:port` spellings a request may name, lower-cased (IPv6 in brackets); empty when
    /// the endpoint is bound to a wildcard address, which `acceptsAnyLiteral` then covers.
    let authorities: Set<String>
    /// Bound to 0.0.0.0 or ::: any IP literal (or `localhost`) with the right port is the
    /// endpoint's own address, since it answers on every interface. Names still are not.
    let acceptsAnyLiteral: Bool
    let port: UInt16
    /// The bearer token's bytes, when one is required.
    let token: [UInt8]?

    init(host: String, port: UInt16, token: String?) {
        let host = host.lowercased()
        var names: [String] = []
        if host.contains(":") { names.append("[\(host)]") } else { names.append(host) }
        if Self.isLoopback(host) { names.append("localhost") }
        var authorities = Set(names.map { "\($0):\(port)" })
        // A browser leaves out the scheme's default port.
        if port == 80 { authorities.formUnion(names) }
        self.authorities = authorities
        self.acceptsAnyLiteral = host == "0.0.0.0" || host == "::"
        self.port = port
        self.token = token.map { Array($0.utf8) }
    }

    /// True for addresses only this machine can reach.
    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || (host.hasPrefix("127.") && isIPv4(host))
    }

    /// Whether a `Host` value (or an `Origin`'s authority) names this endpoint.
    func accepts(authority: String) -> Bool {
        let authority = authority.lowercased()
        if authorities.contains(authority) { return true }
        guard acceptsAnyLiteral else { return false }
        let (name, portText): (Substring, Substring?)
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            name = authority[authority.index(after: authority.startIndex)..<close]
            let rest = authority[authority.index(after: close)...]
            portText = rest.isEmpty ? nil : rest.hasPrefix(":") ? rest.dropFirst() : ""
            guard Self.isIPv6(String(name)) else { return false }
        } else {
            let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { return false }
            name = parts[0]
            portText = parts.count == 2 ? parts[1] : nil
            guard name == "localhost" || Self.isIPv4(String(name)) else { return false }
        }
        guard let portText else { return port == 80 }
        return portText.allSatisfy(\.isASCII) && UInt16(portText) == port
    }

    /// The verdict on a request's headers: nil to go on, or the refusal (fixed texts: nothing
    /// the client sent is echoed).
    func refusal(of head: HTTPHead) -> HTTPResponse? {
        let hosts = head.values(of: "host")
        guard hosts.count == 1 else { return HTTPResponse(status: 400, body: "exactly one Host header is required\n") }
        guard accepts(authority: hosts[0]) else {
            return HTTPResponse(status: 403, body: "Host is not this endpoint's address\n")
        }
        let origins = head.values(of: "origin")
        if !origins.isEmpty {
            guard origins.count == 1, origins[0].lowercased().hasPrefix("http://"),
                accepts(authority: String(origins[0].dropFirst("http://".count)))
            else { return HTTPResponse(status: 403, body: "Origin is not this endpoint\n") }
        }
        if let token {
            let credentials = head.values(of: "authorization")
            guard credentials.count == 1, credentials[0].count > 7,
                credentials[0].prefix(7).lowercased() == "bearer ",
                Self.constantTimeEqual(Array(credentials[0].utf8.dropFirst(7)), token)
            else {
                return HTTPResponse(
                    status: 401, body: "a bearer token is required\n", headers: [.init("WWW-Authenticate", "Bearer")])
            }
        }
        return nil
    }

    /// Compares in time that depends on the expected token's length only, not on where the
    /// first difference is (an attacker timing answers learns nothing of the token's bytes).
    static func constantTimeEqual(_ given: [UInt8], _ expected: [UInt8]) -> Bool {
        var difference = given.count == expected.count ? 0 : 1
        for index in expected.indices {
            difference |= Int(expected[index] ^ (index < given.count ? given[index] : 0))
        }
        return difference == 0
    }

    /// Why a token cannot be used, or nil: 1 to 256 characters, printable ASCII without space
    /// (it travels in a header, where spaces around it are trimmed).
    static func tokenProblem(_ token: String) -> String? {
        guard (1...256).contains(token.utf8.count) else { return "must be 1 to 256 characters" }
        guard token.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            return "must be printable ASCII without spaces"
        }
        return nil
    }

    static func isIPv4(_ text: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, text, &address) == 1
    }

    static func isIPv6(_ text: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, text, &address) == 1
    }
}
