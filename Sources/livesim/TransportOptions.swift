import Foundation
import LiveConnection
import WebSocketTransport

/// The options `connect` and `echo-client` share: headers, trust, size limit.
struct TransportOptions: Sendable {
    var headers: [Endpoint.Header] = []
    var configuration = WebSocketTransport.Configuration()

    /// Consumes `--header K:V` (repeatable), `--ca FILE` and `--max-message-size BYTES`.
    init(_ arguments: inout Arguments) throws {
        for header in try arguments.options("--header") {
            guard let colon = header.firstIndex(of: ":"), colon != header.startIndex else {
                throw ArgumentError.invalidValue("--header", header)
            }
            let value = header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers.append(Endpoint.Header(String(header[..<colon]), value))
        }
        if let path = try arguments.option("--ca") {
            do {
                configuration.tls = TLSConfiguration(trusting: [try String(contentsOfFile: path, encoding: .utf8)])
            } catch {
                throw CommandFailure("cannot read the CA file \(path): \(error.localizedDescription)")
            }
        }
        let deflateParameters = try arguments.option("--deflate-params")
        if arguments.flag("--deflate") || deflateParameters != nil {
            configuration.compression = try Self.compression(deflateParameters ?? "")
        }
        if let size = try arguments.option("--max-message-size", parse: { Int($0) }) {
            guard size > 0 else { throw ArgumentError.invalidValue("--max-message-size", String(size)) }
            configuration.maxMessageSize = size
        }
    }

    /// permessage-deflate options from `--deflate-params`, written as in the offer header.
    private static func compression(_ text: String) throws -> PerMessageDeflate {
        do {
            let name = PerMessageDeflate.extensionName
            let parsed = try WebSocketExtension.parse([text.isEmpty ? name : "\(name); \(text)"])
            guard parsed.count == 1 else { throw ArgumentError.invalidValue("--deflate-params", text) }
            return try PerMessageDeflate(parameters: parsed[0].parameters)
        } catch let error as PerMessageDeflate.InvalidOption {
            throw CommandFailure("--deflate-params: \(error)")
        } catch {
            throw CommandFailure("--deflate-params: not a permessage-deflate parameter list: '\(text)'")
        }
    }

    static let usage = """
          --header K:V             an extra request header (repeatable), e.g. "Authorization: Bearer abc"
          --ca FILE                trust this CA certificate (PEM) for wss://, besides the system's
          --max-message-size N     largest message accepted, in bytes (default 1048576); with
                                   compression, the largest inflated message
          --deflate                offer permessage-deflate compression (RFC 7692)
          --deflate-params P       offer it with these parameters, written as in the header,
                                   e.g. "client_no_context_takeover; server_max_window_bits=10"
        """
}

/// Parses a ws:// or wss:// URL argument.
func parseWebSocketURL(_ text: String) throws -> URL {
    guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "ws" || scheme == "wss" else {
        throw ArgumentError.invalidValue("URL", text)
    }
    return url
}

/// A command failure with a one-line message (exit 1).
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
