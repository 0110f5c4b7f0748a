public import LiveConnectionWire

/// The three victims: behavioural replicas of reconnecting designs that popular iOS
/// guides teach, each written against `Transport`, a `Clock` and a `RandomSource` with
/// structured concurrency only, and each deliberately flawed the way its design is.
///
/// ```swift
/// let catalogue = ClientCatalogue([ManagerClient.kind()] + ExampleClients.all)
/// let summary = WireExplorer(seeds: 0..<1_000, kind: try catalogue.kind(named: "timers")).run()
/// ```
///
/// `docs/guide.md` ("Testing your own reconnecting client") walks through each, with the
/// minimal traces in `Traces/clients/`.
public enum ExampleClients {
    /// A book's notifications socket (`notifications`).
    public static var notifications: ClientKind { NotificationsSocket.kind }
    /// A skill file's reconnecting actor (`actor`).
    public static var reconnectingActor: ClientKind { ReconnectingActor.kind }
    /// A guide's production manager with timers (`timers`).
    public static var timerManager: ClientKind { TimerManager.kind }

    public static var all: [ClientKind] { [notifications, reconnectingActor, timerManager] }
}
