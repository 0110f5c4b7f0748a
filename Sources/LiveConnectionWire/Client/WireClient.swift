public import LiveConnection

/// A reconnecting client the kit can judge from the wire: anything that opens its sockets
/// through the ``Transport`` it is given, sleeps on the given clock and draws from the
/// given random source, with structured concurrency only.
///
/// ```swift
/// actor MyClient: WireClient {
///     init(context: WireClientContext) { … }       // keep context.transport, .clock, .random
///     func run() async { … }                        // its loops, as children of this call
///     func perform(_ intent: AppIntent) async {     // what the app asks
///         switch intent {
///         case .connect(let endpoint): connect(to: endpoint)
///         case .disconnect: disconnect()
///         case .setForeground, .setPathViable: break   // no path monitor
///         }
///     }
///     func isConnected() async -> Bool? { connected }   // or nil: no probe
/// }
/// ```
///
/// The simulated world runs ``run()`` as one child of its task group and cancels it at the
/// end of the run; every socket the client opens, every frame, ping and close it sends,
/// and every attempt's time is seen by the simulated server, which is all the wire judge
/// reads. The client's internals are never read: only ``isConnected()``, when the client
/// offers one, is compared with the wire (open only after a handshake, and only after the
/// subscriptions were sent again).
public protocol WireClient: Sendable {
    /// Runs the client's work until the calling task is cancelled.
    func run() async

    /// The app did something: a screen appeared, the app became active, went to the
    /// background, the user asked to disconnect, or its path monitor reported the network path.
    func perform(_ intent: AppIntent) async

    /// The client's own idea of whether it is connected, or nil if it exposes none.
    func isConnected() async -> Bool?
}

/// What the app asks of a client, in the order the scenario drives it.
///
/// ```swift
/// await client.perform(.connect(endpoint))      // a screen appeared (or the user asked to connect)
/// await client.perform(.setForeground(true))   // the app became active
/// ```
///
/// Spelled as `ConnectionManager`'s methods (`connect(to:)`, `disconnect()`,
/// `setForeground(_:)`, `setPathViable(_:)`) and the machine's `Input` intents, so one
/// intent has one name from the app down to the machine; a client of your own maps each
/// to whatever its API calls it (a screen's `start()`, an app's `activate`).
public enum AppIntent: Hashable, Sendable, CustomStringConvertible {
    /// Want (or keep) a connection to this endpoint: a screen appeared, the user asked.
    case connect(Endpoint)
    /// The app came to the foreground, became active (`true`), or went to the background (`false`).
    case setForeground(Bool)
    /// The user asked to disconnect: nothing may be sent or opened until the next connect.
    case disconnect
    /// The app's path monitor reported the device's network path gone (false) or back
    /// (true), as an app feeds it to its client (`NWPathMonitor` on Apple platforms; on
    /// Linux nothing reports it unless the app does). A client without a path monitor
    /// ignores it; the judge reads the path from the network, not from this.
    case setPathViable(Bool)

    public var description: String {
        switch self {
        case .connect(let endpoint): "connect \(endpoint)"
        case .setForeground(let foreground): foreground ? "foreground" : "background"
        case .disconnect: "disconnect"
        case .setPathViable(let viable): viable ? "path viable" : "path unviable"
        }
    }
}

/// Everything a client gets from the simulated world.
///
/// ```swift
/// let context = WireClientContext(transport: network, clock: clock, seed: 7, topics: ["feed"])
/// let client = MyClient(context: context)
/// ```
public struct WireClientContext: Sendable {
    /// The network: every socket must be opened through it.
    public var transport: any Transport
    /// The only clock the client may sleep on.
    public var clock: any Clock<Duration>
    /// The seed of the client's random source (see ``makeRandom()``).
    public var seed: UInt64
    /// The topics the client subscribes to on every connection.
    public var topics: [String]
    /// The wire spelling of subscribe and resume frames the simulated server understands.
    public var subscriptionProtocol: SubscriptionProtocol

    public init(
        transport: any Transport, clock: any Clock<Duration>, seed: UInt64, topics: [String],
        subscriptionProtocol: SubscriptionProtocol = .json
    ) {
        self.transport = transport
        self.clock = clock
        self.seed = seed
        self.topics = topics
        self.subscriptionProtocol = subscriptionProtocol
    }

    /// A fresh random source for the client, from ``seed``: the client's only randomness.
    public func makeRandom() -> Xoshiro256StarStar { Xoshiro256StarStar(seed: seed) }
}
