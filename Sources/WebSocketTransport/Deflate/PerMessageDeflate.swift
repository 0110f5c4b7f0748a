public import LiveConnection

/// permessage-deflate (RFC 7692) as a client offers it: what it asks of the server and
/// what it promises about its own compression.
///
/// ```swift
/// var configuration = WebSocketTransport.Configuration()
/// configuration.compression = try PerMessageDeflate(serverMaxWindowBits: 12)
/// let transport = WebSocketTransport(configuration: configuration)
/// ```
///
/// Off unless configured: compression costs about 300 KiB of zlib state per connection,
/// and compressing secrets together with data an attacker chooses leaks them through the
/// compressed sizes (CRIME, BREACH). The message size limit applies to the inflated message.
public struct PerMessageDeflate: Hashable, Sendable {
    /// The extension's registered name.
    public static let extensionName = "permessage-deflate"

    /// Asks the server to compress with a window of at most 2^bits bytes (8...15), which
    /// bounds our inflater's memory; nil asks nothing.
    public let serverMaxWindowBits: Int?
    /// Limits our own window (8...15); nil lets the server choose (we offer the bare
    /// `client_max_window_bits`, so a server that wants to save memory can).
    public let clientMaxWindowBits: Int?
    /// Asks the server to compress every message on its own (the server must agree).
    public let serverNoContextTakeover: Bool
    /// Promises that we compress every message on its own: worse compression, but the
    /// server's inflater need not keep our window between messages.
    public let clientNoContextTakeover: Bool
    /// zlib's compression level, 0 (store) ... 9 (smallest).
    public let compressionLevel: Int
    /// zlib's memory level for the deflater, 1...9.
    public let memoryLevel: Int

    /// A value out of range, named.
    public struct InvalidOption: Error, Hashable, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// The common offer: the server's choice of windows and context takeover, level 6.
    public init() {
        serverMaxWindowBits = nil
        clientMaxWindowBits = nil
        serverNoContextTakeover = false
        clientNoContextTakeover = false
        compressionLevel = 6
        memoryLevel = 8
    }

    /// Fails on a window outside 8...15 or a level outside zlib's range.
    public init(
        serverMaxWindowBits: Int? = nil, clientMaxWindowBits: Int? = nil, serverNoContextTakeover: Bool = false,
        clientNoContextTakeover: Bool = false, compressionLevel: Int = 6, memoryLevel: Int = 8
    ) throws(InvalidOption) {
        for (name, bits) in [("server_max_window_bits", serverMaxWindowBits), ("client_max_window_bits", clientMaxWindowBits)] {
            if let bits, !(8...15).contains(bits) {
                throw InvalidOption(description: "\(name) must be 8...15, not \(bits)")
            }
        }
        guard (0...9).contains(compressionLevel) else {
            throw InvalidOption(description: "compression level must be 0...9, not \(compressionLevel)")
        }
        guard (1...9).contains(memoryLevel) else {
            throw InvalidOption(description: "memory level must be 1...9, not \(memoryLevel)")
        }
        self.serverMaxWindowBits = serverMaxWindowBits
        self.clientMaxWindowBits = clientMaxWindowBits
        self.serverNoContextTakeover = serverNoContextTakeover
        self.clientNoContextTakeover = clientNoContextTakeover
        self.compressionLevel = compressionLevel
        self.memoryLevel = memoryLevel
    }

    /// Options from RFC 7692 parameters as an offer spells them, e.g. the parameters of
    /// `permessage-deflate; client_no_context_takeover; server_max_window_bits=10`.
    /// A bare `client_max_window_bits` is the default and may be given.
    public init(parameters: [WebSocketExtension.Parameter], compressionLevel: Int = 6) throws(InvalidOption) {
        var serverBits: Int?
        var clientBits: Int?
        var serverNoContext = false
        var clientNoContext = false
        var seen: Set<String> = []
        for parameter in parameters {
            let name = parameter.name.lowercased()
            guard seen.insert(name).inserted else { throw InvalidOption(description: "\(name) given twice") }
            switch (name, parameter.value) {
            case ("server_no_context_takeover", nil): serverNoContext = true
            case ("client_no_context_takeover", nil): clientNoContext = true
            case ("client_max_window_bits", nil): break
            case ("server_max_window_bits", let value?), ("client_max_window_bits", let value?):
                guard let bits = Int(value) else {
                    throw InvalidOption(description: "\(name) must be a number 8...15, not '\(value)'")
                }
                if name == "server_max_window_bits" { serverBits = bits } else { clientBits = bits }
            default:
                throw InvalidOption(description: "not a permessage-deflate parameter: \(parameter.name)")
            }
        }
        try self.init(
            serverMaxWindowBits: serverBits, clientMaxWindowBits: clientBits, serverNoContextTakeover: serverNoContext,
            clientNoContextTakeover: clientNoContext, compressionLevel: compressionLevel)
    }

    /// The offer, as one `Sec-WebSocket-Extensions` entry.
    public var offer: WebSocketExtension {
        var parameters: [WebSocketExtension.Parameter] = []
        if serverNoContextTakeover { parameters.append(.init("server_no_context_takeover")) }
        if clientNoContextTakeover { parameters.append(.init("client_no_context_takeover")) }
        if let serverMaxWindowBits { parameters.append(.init("server_max_window_bits", String(serverMaxWindowBits))) }
        parameters.append(.init("client_max_window_bits", clientMaxWindowBits.map(String.init)))
        return WebSocketExtension(name: Self.extensionName, parameters: parameters)
    }

    /// What the server's handshake response agrees to; nil if it declined.
    public func agreement(in response: HandshakeResponse) throws(TransportError) -> DeflateParameters? {
        let answer: [WebSocketExtension]
        do throws(WebSocketExtension.SyntaxError) {
            answer = try WebSocketExtension.parse(response.values(of: "sec-websocket-extensions"))
        } catch {
            throw .handshakeInvalid("Sec-WebSocket-Extensions: \(error)")
        }
        return try agreement(accepting: answer)
    }

    /// What the server's `Sec-WebSocket-Extensions` answer agrees to; nil if it declined.
    ///
    /// Fails the handshake (RFC 6455 §4.1, RFC 7692 §7.1) on an extension we did not offer,
    /// a repeated or unknown parameter, a window size outside 8...15 or above what we allowed,
    /// `client_max_window_bits` beyond our own limit, and a response that drops a parameter
    /// we asked the server to accept (`server_no_context_takeover`, `server_max_window_bits`).
    public func agreement(accepting response: [WebSocketExtension]) throws(TransportError) -> DeflateParameters? {
        guard let accepted = response.first else { return nil }
        guard response.count == 1, accepted.name.lowercased() == Self.extensionName else {
            let names = response.map(\.name).joined(separator: ", ")
            throw .handshakeInvalid("the server chose extensions that were not offered: \(names)")
        }
        var agreed = DeflateParameters()
        var seen: Set<String> = []
        for parameter in accepted.parameters {
            let name = parameter.name.lowercased()
            guard seen.insert(name).inserted else {
                throw .handshakeInvalid("permessage-deflate parameter \(name) appears twice")
            }
            switch name {
            case "server_no_context_takeover", "client_no_context_takeover":
                guard parameter.value == nil else {
                    throw .handshakeInvalid("permessage-deflate parameter \(name) takes no value")
                }
                if name == "server_no_context_takeover" {
                    agreed.serverNoContextTakeover = true
                } else {
                    agreed.clientNoContextTakeover = true
                }
            case "server_max_window_bits":
                let bits = try Self.windowBits(parameter)
                if let serverMaxWindowBits, bits > serverMaxWindowBits {
                    throw .handshakeInvalid("server_max_window_bits=\(bits) is above the \(serverMaxWindowBits) offered")
                }
                agreed.serverMaxWindowBits = bits
            case "client_max_window_bits":
                let bits = try Self.windowBits(parameter)
                if let clientMaxWindowBits, bits > clientMaxWindowBits {
                    throw .handshakeInvalid("client_max_window_bits=\(bits) is above the \(clientMaxWindowBits) offered")
                }
                agreed.clientMaxWindowBits = bits
            default:
                throw .handshakeInvalid("unknown permessage-deflate parameter \(parameter.name)")
            }
        }
        if serverNoContextTakeover && !agreed.serverNoContextTakeover {
            throw .handshakeInvalid("the server accepted permessage-deflate without server_no_context_takeover")
        }
        if serverMaxWindowBits != nil && !seen.contains("server_max_window_bits") {
            throw .handshakeInvalid("the server accepted permessage-deflate without server_max_window_bits")
        }
        // Our own promises hold whatever the server answered.
        if let clientMaxWindowBits { agreed.clientMaxWindowBits = min(agreed.clientMaxWindowBits, clientMaxWindowBits) }
        if clientNoContextTakeover { agreed.clientNoContextTakeover = true }
        return agreed
    }

    /// A window size value: a decimal 8...15 without leading zeros, maybe quoted (§7.1.2).
    private static func windowBits(_ parameter: WebSocketExtension.Parameter) throws(TransportError) -> Int {
        guard let text = parameter.value, let bits = Int(text), (8...15).contains(bits), String(bits) == text else {
            throw .handshakeInvalid("\(parameter.name) must be a number 8...15, not '\(parameter.value ?? "")'")
        }
        return bits
    }
}

/// What both ends agreed for a permessage-deflate connection; role-neutral.
///
/// ```swift
/// let agreed = DeflateParameters(clientMaxWindowBits: 10)
/// let deflater = agreed.makeDeflater(for: .clientToServer)   // what a client compresses with
/// let inflater = agreed.makeInflater(for: .serverToClient)   // what a client inflates with
/// ```
public struct DeflateParameters: Hashable, Sendable {
    /// The server compresses with at most 2^bits bytes of window.
    public var serverMaxWindowBits: Int
    /// The client compresses with at most 2^bits bytes of window.
    public var clientMaxWindowBits: Int
    /// The server compresses every message on its own.
    public var serverNoContextTakeover: Bool
    /// The client compresses every message on its own.
    public var clientNoContextTakeover: Bool

    public init(
        serverMaxWindowBits: Int = 15, clientMaxWindowBits: Int = 15, serverNoContextTakeover: Bool = false,
        clientNoContextTakeover: Bool = false
    ) {
        self.serverMaxWindowBits = serverMaxWindowBits
        self.clientMaxWindowBits = clientMaxWindowBits
        self.serverNoContextTakeover = serverNoContextTakeover
        self.clientNoContextTakeover = clientNoContextTakeover
    }

    /// Which way messages travel.
    public enum Direction: Hashable, Sendable {
        case clientToServer, serverToClient
    }

    /// The sender's window in that direction.
    public func windowBits(_ direction: Direction) -> Int {
        direction == .clientToServer ? clientMaxWindowBits : serverMaxWindowBits
    }

    /// Whether the sender in that direction compresses every message on its own.
    public func noContextTakeover(_ direction: Direction) -> Bool {
        direction == .clientToServer ? clientNoContextTakeover : serverNoContextTakeover
    }

    /// The sender's compressor for that direction; nil if zlib cannot allocate one.
    public func makeDeflater(for direction: Direction, level: Int = 6, memoryLevel: Int = 8) -> MessageDeflater? {
        MessageDeflater(
            windowBits: windowBits(direction), noContextTakeover: noContextTakeover(direction), level: level,
            memoryLevel: memoryLevel)
    }

    /// The receiver's decompressor for that direction; nil if zlib cannot allocate one.
    public func makeInflater(for direction: Direction) -> MessageInflater? {
        MessageInflater(windowBits: windowBits(direction), noContextTakeover: noContextTakeover(direction))
    }

    /// The answer a server sends for this agreement, as one `Sec-WebSocket-Extensions` entry.
    public var response: WebSocketExtension {
        var parameters: [WebSocketExtension.Parameter] = []
        if serverNoContextTakeover { parameters.append(.init("server_no_context_takeover")) }
        if clientNoContextTakeover { parameters.append(.init("client_no_context_takeover")) }
        if serverMaxWindowBits < 15 { parameters.append(.init("server_max_window_bits", String(serverMaxWindowBits))) }
        if clientMaxWindowBits < 15 { parameters.append(.init("client_max_window_bits", String(clientMaxWindowBits))) }
        return WebSocketExtension(name: PerMessageDeflate.extensionName, parameters: parameters)
    }
}
