public import LiveConnection

/// ``ConnectionManager`` through the same seam as any other client: the reference the
/// victims are compared with, and the proof that the seam needs nothing private.
///
/// ```swift
/// let kind = ManagerClient.kind()   // production configuration, judged from the wire
/// let summary = WireExplorer(seeds: 0..<10_000, kind: kind).run()
/// ```
///
/// Only public API is used: `connect(to:)` for a start, `setForeground` for activate and
/// background, `disconnect()`, `setPathViable` for the path monitor's reports, and the
/// phase (`open` or not) as the probe.
public struct ManagerClient: WireClient {
    let manager: ConnectionManager
    let topics: [String]

    /// - Parameter logic: the manager's decision maker (default: its own `ConnectionMachine`);
    ///   a broken variant shows what the wire judge catches.
    public init(
        context: WireClientContext, configuration: ConnectionConfiguration, logic: (any ConnectionLogic)? = nil
    ) {
        manager = ConnectionManager(
            configuration: configuration, transport: context.transport, clock: context.clock,
            random: context.makeRandom(), subscriptionProtocol: context.subscriptionProtocol, logic: logic)
        topics = context.topics
    }

    public func run() async { await manager.run() }

    public func perform(_ intent: AppIntent) async {
        switch intent {
        case .connect(let endpoint):
            // The app's topics, before the first connect (a repeated subscribe changes nothing).
            for topic in topics { await manager.subscribe(topic) }
            await manager.connect(to: endpoint)
        case .setForeground(let foreground): await manager.setForeground(foreground)
        case .disconnect: await manager.disconnect()
        case .setPathViable(let viable): await manager.setPathViable(viable)
        }
    }

    public func isConnected() async -> Bool? { await manager.phase.isOpen }

    /// The manager as a client kind, with the claims its configuration makes.
    public static func kind(configuration: ConnectionConfiguration = ConnectionConfiguration()) -> ClientKind {
        ClientKind(
            name: "manager", summary: "LiveConnection's ConnectionManager (production configuration)",
            claims: WireClaims(configuration)
        ) { context in
            ManagerClient(context: context, configuration: configuration)
        }
    }
}
