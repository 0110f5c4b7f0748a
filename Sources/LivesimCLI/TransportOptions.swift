import Foundation
import LiveConnection
import WebSocketTransport

/// The options `connect` and `echo-client` share: headers, trust, size limit, and the URL.
struct TransportOptions: Sendable {
    var headers: [Endpoint.Header] = []
    var maxMessageSize = 1 << 20
    /// Read when the command runs (a file error is a runtime failure, exit 1).
    var caFile: String?
    /// permessage-deflate to offer (`--deflate`, `--deflate-params`), nil for none.
    var compression: PerMessageDeflate?

    /// Consumes `--header K:V` (repeatable), `--ca FILE` and `--max-message-size BYTES`.
    init(_ arguments: inout Arguments) throws(ArgumentError) {
        let headers = try arguments.options("--header")
        guard headers.count <= 100 else {
            throw .outOfRange("--header", "\(headers.count) headers", range: "given at most 100 times")
        }
        for header in headers {
            guard let colon = header.firstIndex(of: ":"), colon != header.startIndex,
                !header.contains(where: { $0 == "\r" || $0 == "\n" })
            else {
                throw .invalidValue(
                    "--header", header, expected: "NAME:VALUE on one line, e.g. \"Authorization: Bearer abc\"")
            }
            let value = header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            self.headers.append(Endpoint.Header(String(header[..<colon]), value))
        }
        caFile = try arguments.option("--ca")
        maxMessageSize = try arguments.integer("--max-message-size", in: 1...(1 << 30), default: 1 << 20)
        let deflateParameters = try arguments.option("--deflate-params")
        if try arguments.flag("--deflate") || deflateParameters != nil {
            compression = try parseDeflateParameters(deflateParameters ?? "")
        }
    }

    /// The transport configuration, reading the CA file if one was given.
    func configuration(timeout: Duration? = nil) throws -> WebSocketTransport.Configuration {
        var configuration = WebSocketTransport.Configuration()
        configuration.maxMessageSize = maxMessageSize
        configuration.compression = compression
        if let timeout { configuration.connectTimeout = timeout }
        if let caFile {
            let pem: String
            do {
                pem = try String(contentsOfFile: caFile, encoding: .utf8)
            } catch {
                throw CommandFailure("cannot read the CA file: \(describe(error))")
            }
            configuration.tls = TLSConfiguration(trusting: [pem])
        }
        return configuration
    }

    static let usage = """
          --header K:V             an extra request header (repeatable, at most 100), e.g. "Authorization: Bearer abc"
          --ca FILE                trust this CA certificate (PEM) for wss://, besides the system's
          --max-message-size N     largest message accepted, in bytes, 1 to 1073741824 (default 1048576); with
                                   compression, the largest inflated message
          --deflate                offer permessage-deflate compression (RFC 7692)
          --deflate-params P       offer it with these parameters, written as in the header,
                                   e.g. "client_no_context_takeover; server_max_window_bits=10"
        """
}

/// permessage-deflate options from `--deflate-params`, written as in the header: the terms
/// a client offers (`connect`, `echo-client`) or a server insists on (`serve`).
func parseDeflateParameters(_ text: String) throws(ArgumentError) -> PerMessageDeflate {
    let expected = "permessage-deflate parameters as in the header, e.g. \"client_no_context_takeover\""
    let name = PerMessageDeflate.extensionName
    guard let parsed = try? WebSocketExtension.parse([text.isEmpty ? name : "\(name); \(text)"]), parsed.count == 1
    else { throw .invalidValue("--deflate-params", text, expected: expected) }
    do {
        return try PerMessageDeflate(parameters: parsed[0].parameters)
    } catch {
        throw .invalidValue("--deflate-params", text, expected: "\(expected) (\(error))")
    }
}

/// Parses a ws:// or wss:// URL argument: a host, a port in 1...65535 if one is given, no
/// spaces. Anything else is refused here rather than retried forever by the manager.
func parseWebSocketURL(_ text: String) throws(ArgumentError) -> URL {
    let expected = "a ws:// or wss:// URL with a host, e.g. ws://127.0.0.1:8080/feed"
    guard text.utf8.count <= 8192, !text.contains(where: { $0.isWhitespace || !$0.isASCII && !$0.isLetter }),
        let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
        scheme == "ws" || scheme == "wss", let url = components.url
    else { throw .invalidValue("URL", text, expected: expected) }
    guard let host = components.host, !host.isEmpty else { throw .invalidValue("URL", text, expected: expected) }
    if let port = components.port, !(1...65535).contains(port) {
        throw .outOfRange("URL", text, range: "a ws:// or wss:// URL with a port in 1...65535")
    }
    return url
}

/// A command failure with a one-line message (exit 1).
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
