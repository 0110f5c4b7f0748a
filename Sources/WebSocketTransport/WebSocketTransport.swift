import Foundation
public import LiveConnection

public import typealias LiveConnection.Mutex

/// The real `Transport`: RFC 6455 over POSIX sockets, TLS through the system OpenSSL.
///
/// ```swift
/// let transport = WebSocketTransport()
/// let connection = try await transport.open(Endpoint(url: URL(string: "wss://example.com/live")!,
///                                                    headers: [.init("Authorization", "Bearer abc")]))
/// try await connection.send(.text("hi"))
/// ```
///
/// Handshake keys and masking keys come from the injected `RandomSource`
/// (the system generator by default) so a seeded test can predict every byte we send.
/// The whole attempt — resolution, TCP, TLS and the upgrade — is bounded by
/// ``Configuration/connectTimeout`` and honours task cancellation at every wait.
public struct WebSocketTransport: Transport {
    /// Limits and TLS trust for every connection this transport opens.
    public struct Configuration: Sendable, Hashable {
        /// The whole connection attempt, TCP to 101, fails with ETIMEDOUT after this.
        public var connectTimeout: Duration
        /// The largest message accepted; bigger ones fail the connection with 1009.
        public var maxMessageSize: Int
        /// How long `close` waits for the server's close frame.
        public var closeTimeout: Duration
        public var tls: TLSConfiguration
        /// permessage-deflate to offer; nil (the default) offers no compression.
        /// ``maxMessageSize`` then limits the inflated message.
        public var compression: PerMessageDeflate?

        public init(
            connectTimeout: Duration = .seconds(10), maxMessageSize: Int = 1 << 20,
            closeTimeout: Duration = .seconds(2),
            tls: TLSConfiguration = TLSConfiguration(), compression: PerMessageDeflate? = nil
        ) {
            self.connectTimeout = connectTimeout
            self.maxMessageSize = maxMessageSize
            self.closeTimeout = closeTimeout
            self.tls = tls
            self.compression = compression
        }
    }

    public var configuration: Configuration
    private let random: SharedRandom

    public init(
        configuration: Configuration = Configuration(), random: some RandomSource & Sendable = SystemRandomSource()
    ) {
        self.configuration = configuration
        self.random = SharedRandom(random)
    }

    public func connect(to endpoint: Endpoint) async throws(TransportError) -> any TransportConnection {
        try await open(endpoint)
    }

    /// Like ``connect(to:)`` but returns the concrete connection (with its ``WebSocketConnection/subprotocol``).
    public func open(_ endpoint: Endpoint) async throws(TransportError) -> WebSocketConnection {
        let deadline = ContinuousClock.now + configuration.connectTimeout
        let key = random.draw { HandshakeRequest.makeKey(using: &$0) }
        let compression = configuration.compression
        let request = try HandshakeRequest(
            endpoint: endpoint, key: key, extensions: compression.map { [$0.offer] } ?? [])
        let socket = try await TCPSocket.connect(host: request.target.host, port: request.target.port, until: deadline)
        let stream: any ByteStream =
            request.target.isSecure
            ? try await TLSStream.handshake(
                over: socket, host: request.target.host, configuration: configuration.tls, until: deadline)
            : socket
        do throws(TransportError) {
            try await stream.write(request.bytes, until: deadline)
            var received: [UInt8] = []
            while true {
                if let (response, consumed) = try HandshakeResponse.parse(received) {
                    let subprotocol = try response.validate(for: request)
                    let codec = try compression.flatMap { options throws(TransportError) in
                        try options.agreement(in: response).map { agreed throws(TransportError) in
                            try DeflateCodec(
                                agreed, sending: .clientToServer, level: options.compressionLevel,
                                memoryLevel: options.memoryLevel)
                        }
                    }
                    return WebSocketConnection(
                        stream: stream, subprotocol: subprotocol, leftover: Array(received[consumed...]),
                        maxMessageSize: configuration.maxMessageSize, random: random.split(),
                        closeTimeout: configuration.closeTimeout, compression: codec, responseHeaders: response.headers)
                }
                let bytes = try await stream.read(maximum: 4096, until: deadline)
                if bytes.isEmpty {
                    throw TransportError.handshakeInvalid("the server closed the connection during the handshake")
                }
                received += bytes
            }
        } catch {
            stream.shutdown()
            throw error
        }
    }
}

/// The transport's random source, shared by its connection attempts.
///
/// Each connection gets a source of its own, seeded from this one, so connections never
/// contend on a lock per frame and a seeded transport stays reproducible.
package final class SharedRandom: Sendable {
    private let source: Mutex<any RandomSource & Sendable>

    package init(_ source: some RandomSource & Sendable) {
        self.source = Mutex(source)
    }

    package func draw<T>(_ body: (inout any RandomSource & Sendable) -> T) -> T {
        source.withLock { body(&$0) }
    }

    package func split() -> any RandomSource & Sendable {
        Xoshiro256StarStar(seed: draw { $0.nextWord() })
    }
}
