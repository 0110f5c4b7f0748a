public import Foundation
import Synchronization

/// The reconnecting connection manager: a thin actor shell around ``ConnectionMachine``.
///
/// ```swift
/// let manager = ConnectionManager(transport: WebSocketTransport())
/// try await withThrowingDiscardingTaskGroup { group in
///     group.addTask { await manager.run() }          // the caller owns the manager's work
///     await manager.subscribe("loans")
///     await manager.connect(to: Endpoint(url: URL(string: "wss://example.com/live")!))
///     for await event in await manager.events() { print(event) }
/// }
/// ```
///
/// The machine decides, the shell does: every input goes through the machine, and the
/// shell only turns the machine's effects into I/O through the injected `Clock`,
/// ``Transport`` and ``RandomSource``. All concurrent work (connection attempts, receive
/// loops, which read the pongs too, the timers' one sleeping job) runs as child tasks of ``run()``: structured concurrency only,
/// so a task-executor preference puts every job of the manager on the simulator's
/// deterministic executor.
public actor ConnectionManager {
    let transport: any Transport
    let clock: ElapsedClock
    let wire: SubscriptionProtocol
    let credentials: CredentialsProvider?
    /// The provider is asked before every attempt (as part of it), not only after an expiry.
    let fetchesCredentialsBeforeConnect: Bool
    /// An app ping's timeout when the app names none: the heartbeat's T.
    let configuredPingTimeout: Duration
    let observer: Observer?
    var logic: any ConnectionLogic
    var random: AnyRandomSource

    let broadcaster = EventBroadcaster()
    /// Jobs for ``run()`` to start as child tasks of its group.
    let jobs = Mailbox<Job>()
    private var hasRun = false

    /// Per live generation: its mailbox and the signal that abandons its attempt.
    var generations: [Generation: GenerationHandle] = [:]
    /// Per generation whose handshake completed: the server's answer, until it is closed.
    var handshakes: [Generation: Handshake] = [:]
    /// Armed timers, and the one job that sleeps until the earliest. Behind a lock so that
    /// the job, woken for a timer since disarmed, can sleep on without an actor hop.
    let timers = Mutex(TimerSchedule())
    /// Commands waiting for their outcome, with their payload.
    var commands: [CommandID: (message: Message, continuation: CheckedContinuation<CommandOutcome, Never>)] = [:]
    var nextCommand: UInt64 = 1
    /// App pings waiting for their outcome.
    var pings: [PingID: CheckedContinuation<PingOutcome, Never>] = [:]
    var nextPing: UInt64 = 1
    /// Headers from the last credentials refresh, laid over the endpoint's own.
    var refreshedHeaders: [Endpoint.Header] = []

    /// Fresh credentials (e.g. `Authorization` headers): after a token expired (close 4001),
    /// or before every attempt (``ConnectionConfiguration/credentialsTiming``).
    public typealias CredentialsProvider = @Sendable () async throws -> [Endpoint.Header]

    /// Sees every input and the effects it produced, in order: the simulator's invariants
    /// and traces are built on it. Called on the actor; keep it cheap.
    public typealias Observer = @Sendable (Input, [Effect]) -> Void

    /// A job for ``run()``'s task group.
    typealias Job = @Sendable () async -> Void

    /// - Parameters:
    ///   - configuration: heartbeat, timeouts, backoff, close-code classes.
    ///   - transport: the network (`WebSocketTransport` or a simulated one).
    ///   - clock: all time goes through it (`ContinuousClock` or a virtual clock).
    ///   - random: backoff draws (system generator, or a seeded one in tests).
    ///   - subscriptionProtocol: the wire spelling of subscribe / resume / sequence numbers.
    ///   - credentials: called once per token expiry, or before every attempt with
    ///     `credentialsTiming = .beforeEveryConnect`; `nil` reconnects with the same headers.
    ///   - logic: the decision maker; defaults to `ConnectionMachine(configuration:)`.
    ///   - observer: sees every input and its effects.
    public init(
        configuration: ConnectionConfiguration = ConnectionConfiguration(),
        transport: any Transport,
        clock: any Clock<Duration> = ContinuousClock(),
        random: any RandomSource & Sendable = SystemRandomSource(),
        subscriptionProtocol: SubscriptionProtocol = .json,
        credentials: CredentialsProvider? = nil,
        logic: (any ConnectionLogic)? = nil,
        observer: Observer? = nil
    ) {
        self.transport = transport
        self.clock = ElapsedClock(clock)
        self.random = AnyRandomSource(random)
        self.wire = subscriptionProtocol
        self.credentials = credentials
        fetchesCredentialsBeforeConnect = credentials != nil && configuration.credentialsTiming == .beforeEveryConnect
        configuredPingTimeout = configuration.heartbeatTimeout
        self.logic = logic ?? ConnectionMachine(configuration: configuration)
        self.observer = observer
    }

    /// Runs the manager's work until the calling task is cancelled.
    ///
    /// Call it exactly once, from a task you own (a task group child, a service
    /// lifecycle's `run`). Cancelling it closes the connection and ends event streams.
    ///
    /// The loop that starts jobs runs off the actor: waiting for the next job and starting it
    /// need none of the manager's state, so a job costs no hop onto the actor and back.
    public nonisolated func run() async {
        await beginRunning()
        await withDiscardingTaskGroup { group in
            while let job = await jobs.next() {
                group.addTask { await job() }
            }
            group.cancelAll()
        }
        await shutDown()
    }

    private func beginRunning() {
        precondition(!hasRun, "ConnectionManager.run() called twice")
        hasRun = true
    }

    // MARK: Intents

    /// Wants a connection to `endpoint`: the only way the destination changes.
    public func connect(to endpoint: Endpoint) { process(.connect(endpoint)) }

    /// Wants a connection to `url`.
    public func connect(to url: URL) { process(.connect(Endpoint(url: url))) }

    /// Stops wanting a connection: closes it (1000 "disconnected") and stops retrying.
    public func disconnect() { process(.disconnect()) }

    /// Stops wanting a connection, closing it with your own code and reason.
    ///
    /// ```swift
    /// try await manager.disconnect(code: CloseCode(4000), reason: "user signed out")
    /// ```
    ///
    /// Throws ``CloseRequestError`` (and changes nothing) for a code an endpoint may not
    /// send (RFC 6455 §7.4: 0–999, 1004–1006, 1015, 1016–2999, 5000 and above) or a reason
    /// longer than the 123 bytes of UTF-8 a close frame has room for.
    public func disconnect(code: CloseCode, reason: String = "") throws(CloseRequestError) {
        guard code.isSendable else { throw .codeNotSendable(code) }
        let length = reason.utf8.count
        guard length <= CloseRequestError.maximumReasonLength else { throw .reasonTooLong(bytes: length) }
        process(.disconnect(code: code, reason: reason))
    }

    /// The app moved to the foreground or background. Backgrounding closes the socket
    /// but remembers that the connection is wanted; coming back reconnects at once.
    public func setForeground(_ foreground: Bool) { process(.setForeground(foreground)) }

    /// The network path can (`true`) or cannot (`false`) carry a connection, as the app's
    /// path monitor sees it: the manager reads no platform framework, so the app tells it.
    ///
    /// ```swift
    /// // Apple platforms: Network.framework's monitor
    /// monitor.pathUpdateHandler = { path in Task { await manager.setPathViable(path.status == .satisfied) } }
    /// ```
    ///
    /// Without a path the phase is ``Phase/offline``: no attempt is made, no failure counted,
    /// no backoff delay spent; an attempt in flight is abandoned. When the path returns, the
    /// manager connects at once (the attempt count goes on from where it was: only a
    /// connection that answers a heartbeat starts it again). An open connection is kept when
    /// the path changes, but must answer a ping within the heartbeat timeout T.
    public func setPathViable(_ viable: Bool) { process(.setPathViable(viable)) }

    /// Subscribes to a topic now (if open) and on every future connection.
    public func subscribe(_ topic: String) { process(.subscribe(topic)) }

    /// Unsubscribes from a topic now (if open) and on future connections.
    public func unsubscribe(_ topic: String) { process(.unsubscribe(topic)) }

    /// Sends a command at most once, on the current connection.
    ///
    /// Throws ``CommandError/notConnected`` when there is no open connection and
    /// ``CommandError/outcomeUnknown`` when the connection ended with the command in
    /// flight. Never resent on its own: retry the connection, never the command.
    public func send(_ message: Message) async throws(CommandError) {
        let id = CommandID(nextCommand)
        nextCommand += 1
        let outcome = await withCheckedContinuation { continuation in
            commands[id] = (message, continuation)
            process(.send(id))
        }
        switch outcome {
        case .sent: return
        case .failed(let error): throw error
        }
    }

    /// Sends a text command at most once.
    public func send(text: String) async throws(CommandError) { try await send(.text(text)) }

    /// Sends a binary command at most once.
    public func send(data: Data) async throws(CommandError) { try await send(.binary(data)) }

    /// Encodes `value` as JSON and sends it as a text command at most once.
    public func send(_ value: some Encodable, encoder: JSONEncoder = JSONEncoder()) async throws(CommandError) {
        let data: Data
        do { data = try encoder.encode(value) } catch { throw .encodingFailed("\(error)") }
        try await send(.text(String(decoding: data, as: UTF8.self)))
    }

    /// Asks whether the server answers a ping within `timeout` (default: the heartbeat's
    /// timeout T), and returns how that ended, exactly once: ``PingOutcome/alive``,
    /// ``PingOutcome/noAnswer`` by the timeout, or ``PingOutcome/failed(_:)`` when there is no
    /// open connection or it ends meanwhile.
    ///
    /// ```swift
    /// if await manager.ping(timeout: .seconds(2)) == .alive { hideStaleBanner() }
    /// ```
    ///
    /// The answer is the app's to act on: a ping without an answer does not tear the
    /// connection down (the heartbeat decides that). A timeout that is not above zero or is
    /// over an hour is refused with ``PingFailure/invalidTimeout(_:)``, and nothing is sent.
    public func ping(timeout: Duration? = nil) async -> PingOutcome {
        let timeout = timeout ?? configuredPingTimeout
        guard timeout > .zero, timeout <= .seconds(3600) else { return .failed(.invalidTimeout(timeout)) }
        let id = PingID(nextPing)
        nextPing += 1
        return await withCheckedContinuation { continuation in
            pings[id] = continuation
            process(.ping(id, timeout: timeout))
        }
    }

    // MARK: Observing

    /// A stream of events that starts with the current phase; messages are never replayed.
    public func events() -> ConnectionEvents {
        broadcaster.subscribe(startingWith: .phase(logic.phase))
    }

    /// The phase now.
    public var phase: Phase { logic.phase }

    /// The open connection's handshake: the subprotocol the server chose and its response
    /// headers. Nil unless the phase is open (a new connection's shows once it opens).
    ///
    /// ```swift
    /// if await manager.handshake?.subprotocol == "v2.live" { useVersion2() }
    /// ```
    public var handshake: Handshake? {
        guard logic.phase.isOpen, let newest = handshakes.keys.max() else { return nil }
        return handshakes[newest]
    }

    // MARK: The one path into the machine

    /// Runs one input through the machine and executes its verdict, synchronously on the
    /// actor. Every effect carries what executing it needs (``Effect/deliverMessage(_:sequence:)``
    /// the message a `received` input brought), so nothing travels beside the effects.
    func process(_ input: Input) {
        let effects = logic.handle(input, using: &random)
        observer?(input, effects)
        for effect in effects { execute(effect) }
    }

    private func shutDown() {
        // Every job has ended; tell the machine (and the app) that nothing is wanted now.
        process(.disconnect())
        // Sorted, never in hash order: the order of these wake-ups must not vary between runs.
        for g in generations.keys.sorted() { generations[g]?.abandon() }
        generations = [:]
        handshakes = [:]
        for id in commands.keys.sorted() { commands[id]?.continuation.resume(returning: .outcomeUnknown) }
        commands = [:]
        for id in pings.keys.sorted() { pings[id]?.resume(returning: .failed(.connectionEnded)) }
        pings = [:]
        broadcaster.finish()
    }
}
