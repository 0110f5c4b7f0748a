/// The parameters of one `permessage-deflate` header entry, read by RFC 7692 §7.1's rules
/// before either end judges them: each at most once, the two context-takeover flags
/// without a value, a window size a decimal 8...15 without leading zeros (maybe quoted).
///
/// ```swift
/// let entry = try WebSocketExtension.parse(["permessage-deflate; client_max_window_bits; server_max_window_bits=10"])
/// let spelled = try DeflateHeaderParameters(entry[0].parameters)
/// spelled.serverMaxWindowBits        // 10
/// spelled.clientMaxWindowBitsGiven   // true, without a value
/// ```
///
/// One reader for the three places the syntax appears: a client's own options
/// (`--deflate-params`), a client reading the server's answer, a server reading the
/// client's offers. What is allowed where (a bare `client_max_window_bits` only in an
/// offer) is the caller's rule, because it is the role's.
struct DeflateHeaderParameters: Hashable, Sendable {
    var serverNoContextTakeover = false
    var clientNoContextTakeover = false
    /// `server_max_window_bits`, which always has a value (§7.1.2.1).
    var serverMaxWindowBits: Int?
    /// `client_max_window_bits` appeared, with or without a value (§7.1.2.2).
    var clientMaxWindowBitsGiven = false
    /// Its value, if it had one.
    var clientMaxWindowBits: Int?

    /// What is wrong with the entry, in a sentence.
    struct Problem: Error, Hashable, Sendable, CustomStringConvertible {
        var description: String
    }

    init(_ parameters: [WebSocketExtension.Parameter]) throws(Problem) {
        var seen: Set<String> = []
        for parameter in parameters {
            let name = parameter.name.lowercased()
            guard seen.insert(name).inserted else {
                throw Problem(description: "permessage-deflate parameter \(name) appears twice")
            }
            switch name {
            case "server_no_context_takeover", "client_no_context_takeover":
                guard parameter.value == nil else {
                    throw Problem(description: "permessage-deflate parameter \(name) takes no value")
                }
                if name == "server_no_context_takeover" {
                    serverNoContextTakeover = true
                } else {
                    clientNoContextTakeover = true
                }
            case "server_max_window_bits":
                serverMaxWindowBits = try Self.windowBits(name, parameter.value)
            case "client_max_window_bits":
                clientMaxWindowBitsGiven = true
                if let value = parameter.value { clientMaxWindowBits = try Self.windowBits(name, value) }
            default:
                throw Problem(description: "unknown permessage-deflate parameter \(parameter.name)")
            }
        }
    }

    /// A window size value: a decimal 8...15 without leading zeros (§7.1.2).
    private static func windowBits(_ name: String, _ text: String?) throws(Problem) -> Int {
        guard let text, let bits = Int(text), (8...15).contains(bits), String(bits) == text else {
            throw Problem(description: "\(name) must be a number 8...15, not '\(text ?? "")'")
        }
        return bits
    }
}
