/// One entry of a `Sec-WebSocket-Extensions` header: a name and its parameters (RFC 6455 §9.1).
///
/// ```swift
/// let offers = try WebSocketExtension.parse(["permessage-deflate; client_max_window_bits, x-foo"])
/// offers[0].name                        // "permessage-deflate"
/// offers[0].parameters[0].name          // "client_max_window_bits"
/// offers[0].headerValue                 // "permessage-deflate; client_max_window_bits"
/// ```
///
/// Both ends use it: a client renders its offers and parses the server's answer, a
/// server parses the offers and renders its answer. Quoted parameter values are unquoted.
package struct WebSocketExtension: Hashable, Sendable {
    package var name: String
    /// Parameters in the order written; a parameter without `=` has a nil value.
    package var parameters: [Parameter]

    package struct Parameter: Hashable, Sendable {
        package var name: String
        package var value: String?
        package init(_ name: String, _ value: String? = nil) {
            self.name = name
            self.value = value
        }
    }

    package init(name: String, parameters: [Parameter] = []) {
        self.name = name
        self.parameters = parameters
    }

    /// The header text for this entry, e.g. `permessage-deflate; server_max_window_bits=10`.
    package var headerValue: String {
        ([name] + parameters.map { parameter in parameter.value.map { "\(parameter.name)=\($0)" } ?? parameter.name })
            .joined(separator: "; ")
    }

    /// A malformed header, with what was wrong.
    package struct SyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
        package var description: String
    }

    /// Every entry of the given header values (a header may appear several times), in order.
    package static func parse(_ values: [String]) throws(SyntaxError) -> [WebSocketExtension] {
        var result: [WebSocketExtension] = []
        for value in values {
            var scanner = Scanner(Array(value.utf8))
            scanner.skipSpace()
            // Empty list elements are allowed by the list syntax (RFC 9110 §5.6.1).
            while !scanner.atEnd {
                if scanner.take(UInt8(ascii: ",")) {
                    scanner.skipSpace()
                    continue
                }
                var entry = WebSocketExtension(name: try scanner.token("extension name in '\(value)'"))
                scanner.skipSpace()
                while scanner.take(UInt8(ascii: ";")) {
                    scanner.skipSpace()
                    let name = try scanner.token("parameter name in '\(value)'")
                    scanner.skipSpace()
                    var parameterValue: String?
                    if scanner.take(UInt8(ascii: "=")) {
                        scanner.skipSpace()
                        parameterValue = try scanner.tokenOrQuoted("value of \(name) in '\(value)'")
                        scanner.skipSpace()
                    }
                    entry.parameters.append(Parameter(name, parameterValue))
                }
                guard scanner.atEnd || scanner.take(UInt8(ascii: ",")) else {
                    throw SyntaxError(description: "unexpected character in extension header '\(value)'")
                }
                scanner.skipSpace()
                result.append(entry)
            }
        }
        return result
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index == bytes.count }

        mutating func skipSpace() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func token(_ what: String) throws(SyntaxError) -> String {
            let start = index
            while index < bytes.count, Self.isTokenByte(bytes[index]) { index += 1 }
            guard index > start else { throw SyntaxError(description: "missing \(what)") }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        mutating func tokenOrQuoted(_ what: String) throws(SyntaxError) -> String {
            guard take(UInt8(ascii: "\"")) else { return try token(what) }
            var value: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""): return String(decoding: value, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { break }
                    value.append(bytes[index])
                    index += 1
                default: value.append(byte)
                }
            }
            throw SyntaxError(description: "unterminated quoted \(what)")
        }

        /// RFC 9110 §5.6.2 tchar.
        static func isTokenByte(_ byte: UInt8) -> Bool {
            byte > 0x20 && byte < 0x7F && !"\"(),/:;<=>?@[\\]{}".utf8.contains(byte)
        }
    }
}
