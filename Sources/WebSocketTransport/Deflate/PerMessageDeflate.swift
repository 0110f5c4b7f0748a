package import LiveConnection

/// permessage-deflate (RFC 7692) as one end wants it: a client offers it, a server answers
/// a client's offer with it (`answer(to:)`).
///
/// ```swift
/// var configuration = WebSocketTransport.Configuration()
/// configuration.compression = try PerMessageDeflate(serverMaxWindowBits: 12)
/// let transport = WebSocketTransport(configuration: configuration)
/// ```
///
/// Each option names a term of the agreement, whichever end sets it: the server's window
/// is at most so many bits, the client starts every message afresh, and so on. A client
/// asks for or promises the terms; a server grants what is asked and adds its own.
///
/// Off unless configured: compression costs about 300 KiB of zlib state per connection,
/// and compressing secrets together with data an attacker chooses leaks them through the
/// compressed sizes (CRIME, BREACH). The message size limit applies to the inflated message.
public struct PerMessageDeflate: Hashable, Sendable {
    /// The extension's registered name.
    public static let extensionName = "permessage-deflate"

    /// The server compresses with a window of at most 2^bits bytes (8...15), which bounds
    /// the client's inflater: a client asks it, a server announces it. Nil: no limit from this end.
    public let serverMaxWindowBits: Int?
    /// The client compresses with a window of at most 2^bits bytes (8...15). A client limits
    /// itself (nil lets the server choose: we offer the bare `client_max_window_bits`); a
    /// server asks it of a client whose offer names the parameter (§7.1.2.2), to bound its
    /// inflater's memory, and nil asks nothing.
    public let clientMaxWindowBits: Int?
    /// The server compresses every message on its own: a client asks it (the server must
    /// agree), a server announces it.
    public let serverNoContextTakeover: Bool
    /// The client compresses every message on its own (worse compression, but the server's
    /// inflater need not keep the window): a client promises it, a server requires it.
    public let clientNoContextTakeover: Bool
    /// zlib's compression level, 0 (store) ... 9 (smallest).
    public let compressionLevel: Int
    /// zlib's memory level for the deflater, 1...9.
    public let memoryLevel: Int

    /// A value out of range, named.
    public struct InvalidOption: Error, Hashable, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// The common offer (the server's choice of windows and context takeover), and a server
    /// that grants every valid offer as it stands; level 6.
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
        for (name, bits) in [
            ("server_max_window_bits", serverMaxWindowBits), ("client_max_window_bits", clientMaxWindowBits),
        ] {
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

    /// Options from RFC 7692 parameters in the header's spelling, e.g. the parameters of
    /// `permessage-deflate; client_no_context_takeover; server_max_window_bits=10`.
    /// A bare `client_max_window_bits` is the default and may be given.
    package init(parameters: [WebSocketExtension.Parameter], compressionLevel: Int = 6) throws(InvalidOption) {
        let spelled: DeflateHeaderParameters
        do throws(DeflateHeaderParameters.Problem) {
            spelled = try DeflateHeaderParameters(parameters)
        } catch {
            throw InvalidOption(description: error.description)
        }
        try self.init(
            serverMaxWindowBits: spelled.serverMaxWindowBits, clientMaxWindowBits: spelled.clientMaxWindowBits,
            serverNoContextTakeover: spelled.serverNoContextTakeover,
            clientNoContextTakeover: spelled.clientNoContextTakeover, compressionLevel: compressionLevel)
    }

    // MARK: The client's side

    /// The offer, as one `Sec-WebSocket-Extensions` entry.
    package var offer: WebSocketExtension {
        var parameters: [WebSocketExtension.Parameter] = []
        if serverNoContextTakeover { parameters.append(.init("server_no_context_takeover")) }
        if clientNoContextTakeover { parameters.append(.init("client_no_context_takeover")) }
        if let serverMaxWindowBits { parameters.append(.init("server_max_window_bits", String(serverMaxWindowBits))) }
        parameters.append(.init("client_max_window_bits", clientMaxWindowBits.map(String.init)))
        return WebSocketExtension(name: Self.extensionName, parameters: parameters)
    }

    /// What the server's handshake response agrees to; nil if it declined.
    package func agreement(in response: HandshakeResponse) throws(TransportError) -> DeflateParameters? {
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
    package func agreement(accepting response: [WebSocketExtension]) throws(TransportError) -> DeflateParameters? {
        guard let accepted = response.first else { return nil }
        guard response.count == 1, accepted.name.lowercased() == Self.extensionName else {
            let names = response.map(\.name).joined(separator: ", ")
            throw .handshakeInvalid("the server chose extensions that were not offered: \(names)")
        }
        let spelled: DeflateHeaderParameters
        do throws(DeflateHeaderParameters.Problem) {
            spelled = try DeflateHeaderParameters(accepted.parameters)
        } catch {
            throw .handshakeInvalid(error.description)
        }
        if spelled.clientMaxWindowBitsGiven && spelled.clientMaxWindowBits == nil {
            throw .handshakeInvalid("client_max_window_bits must be a number 8...15 in an answer, not ''")
        }
        if let bits = spelled.serverMaxWindowBits, let serverMaxWindowBits, bits > serverMaxWindowBits {
            throw .handshakeInvalid("server_max_window_bits=\(bits) is above the \(serverMaxWindowBits) offered")
        }
        if let bits = spelled.clientMaxWindowBits, let clientMaxWindowBits, bits > clientMaxWindowBits {
            throw .handshakeInvalid("client_max_window_bits=\(bits) is above the \(clientMaxWindowBits) offered")
        }
        if serverNoContextTakeover && !spelled.serverNoContextTakeover {
            throw .handshakeInvalid("the server accepted permessage-deflate without server_no_context_takeover")
        }
        if serverMaxWindowBits != nil && spelled.serverMaxWindowBits == nil {
            throw .handshakeInvalid("the server accepted permessage-deflate without server_max_window_bits")
        }
        // Our own promises hold whatever the server answered.
        return DeflateParameters(
            serverMaxWindowBits: spelled.serverMaxWindowBits ?? 15,
            clientMaxWindowBits: min(spelled.clientMaxWindowBits ?? 15, clientMaxWindowBits ?? 15),
            serverNoContextTakeover: spelled.serverNoContextTakeover,
            clientNoContextTakeover: spelled.clientNoContextTakeover || clientNoContextTakeover)
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
    package func makeDeflater(for direction: Direction, level: Int = 6, memoryLevel: Int = 8) -> MessageDeflater? {
        MessageDeflater(
            windowBits: windowBits(direction), noContextTakeover: noContextTakeover(direction), level: level,
            memoryLevel: memoryLevel)
    }

    /// The receiver's decompressor for that direction; nil if zlib cannot allocate one.
    package func makeInflater(for direction: Direction) -> MessageInflater? {
        MessageInflater(windowBits: windowBits(direction), noContextTakeover: noContextTakeover(direction))
    }
}
