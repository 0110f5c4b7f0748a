import Foundation
import LiveConnection
import LiveConnectionSimulator
import WebSocketTransport

/// One `livesim connect` run: the manager's events, the clock and the signals merged into
/// one sequence of occurrences, each mapped to what to print and whether to stop.
struct ConnectSession: Sendable {
    let manager: ConnectionManager
    let transport: TrackedTransport
    /// `--check`: the invariant monitor judging this manager, or nil.
    let check: ConnectCheck?
    /// When the session began: event times and the monitor's instants count from it.
    let start: ContinuousClock.Instant
    private let clock = ContinuousClock()
    /// The transport's close timeout (2 s) and a margin: how long a stop waits for the server's close.
    private let closeGrace: Duration = .seconds(3)
    /// The exit status of a run in which the monitor found a violation.
    static let violationStatus: Int32 = 3

    init(
        manager: ConnectionManager, transport: TrackedTransport, check: ConnectCheck? = nil,
        start: ContinuousClock.Instant
    ) {
        self.manager = manager
        self.transport = transport
        self.check = check
        self.start = start
    }

    /// What can happen while connected.
    private enum Occurrence: Sendable {
        case event(ConnectionEvent)
        case durationElapsed
        case signal(Int32)
        /// The close handshake did not finish in time after we asked to stop.
        case stopDeadline
        /// `--check` found an invariant broken.
        case violation
    }

    /// Why we asked the manager to disconnect, and the exit status that goes with it.
    private struct Stop {
        var status: Int32
        var why: String
    }

    /// The manager over the real transport (watched by the invariant monitor with `checks`),
    /// with `variant`'s logic if one is named.
    static func make(
        configuration: ConnectionConfiguration, options: TransportOptions, checks: Bool, tolerance: Duration,
        variant: LogicVariant?
    ) throws -> ConnectSession {
        let start = ContinuousClock.now
        let real = WebSocketTransport(configuration: try options.configuration())
        let check =
            checks
            ? ConnectCheck(configuration: configuration, transport: real, start: start, tolerance: tolerance) : nil
        let transport = TrackedTransport(inner: check?.transport ?? real)
        var observer: ConnectionManager.Observer?
        if let monitor = check?.monitor {
            observer = { input, effects in monitor.observe(input, effects) }
        }
        let manager = ConnectionManager(
            configuration: configuration, transport: transport, logic: variant?.logic(for: configuration),
            observer: observer)
        return ConnectSession(manager: manager, transport: transport, check: check, start: start)
    }

    /// Runs until the session ends; returns the exit status.
    func run(endpoint: Endpoint, topics: [String], duration: Duration?) async -> Int32 {
        let signals = InterruptSignals()
        defer { signals.restoreDefaults() }
        let (occurrences, feed) = AsyncStream.makeStream(of: Occurrence.self)
        return await withTaskGroup(of: Void.self) { group in
            group.addTask { await manager.run() }
            if let check {
                for line in check.preamble { printLine(line) }
                let (subscriber, events) = await manager.events(reportingTo: check.monitor)
                group.addTask {
                    for await event in events {
                        check.monitor.subscriber(subscriber, received: event)
                        feed.yield(.event(event))
                    }
                }
                group.addTask {
                    for await _ in check.found { feed.yield(.violation) }
                }
                group.addTask {
                    // The timed invariants also when nothing happens (a silent socket produces no input).
                    while (try? await clock.sleep(for: ConnectCheck.interval)) != nil { check.monitor.check() }
                }
            } else {
                let events = await manager.events()
                group.addTask {
                    for await event in events { feed.yield(.event(event)) }
                }
            }
            group.addTask {
                for await number in signals.signals { feed.yield(.signal(number)) }
            }
            if let duration {
                group.addTask {
                    guard (try? await clock.sleep(for: duration)) != nil else { return }
                    feed.yield(.durationElapsed)
                }
            }
            for topic in topics { await manager.subscribe(topic) }
            await manager.connect(to: endpoint)

            var stopping: Stop?
            var status: Int32 = 1
            var violationsPrinted = 0
            loop: for await occurrence in occurrences {
                var request: Stop?
                switch occurrence {
                case .event(let event):
                    let seconds = Double(start.duration(to: clock.now).nanoseconds) / 1e9
                    // Unbuffered, so a pipe sees each event as it happens.
                    FileHandle.standardOutput.write(Data((String(format: "%8.3f ", seconds) + "\(event)\n").utf8))
                    switch event {
                    case .phase(.stopped(let reason, _)):
                        // What follows a stop is teardown, not the world the manager is judged in.
                        check?.monitor.finish()
                        if let stopping {
                            await waitForCloseHandshake()
                            printLine("stopped (\(stopping.why))")
                            status = stopping.status
                        } else {
                            standardError("livesim connect: the manager stopped for good: \(clipped(reason, to: 200))")
                            status = 1
                        }
                        break loop
                    default: break
                    }
                case .durationElapsed:
                    request = Stop(status: 0, why: "duration elapsed")
                case .signal(let number):
                    request = Stop(
                        status: InterruptSignals.exitStatus(for: number),
                        why: number == SIGINT ? "interrupted" : "terminated")
                    // A second Ctrl-C ends the process at once.
                    signals.restoreDefaults()
                case .stopDeadline:
                    printLine("stopped (\(stopping?.why ?? "deadline")); the close handshake did not finish in time")
                    status = stopping?.status ?? 1
                    break loop
                case .violation:
                    violationsPrinted = printViolations(after: violationsPrinted)
                    request = Stop(status: Self.violationStatus, why: "an invariant was violated")
                }
                if let request, stopping == nil {
                    stopping = request
                    if request.status == 1 { standardError("livesim connect: \(clipped(request.why, to: 300))") }
                    // The timed invariants judge up to here; the disconnect is still watched by the others.
                    check?.monitor.finish()
                    await manager.disconnect()
                    group.addTask {
                        guard (try? await clock.sleep(for: closeGrace)) != nil else { return }
                        feed.yield(.stopDeadline)
                    }
                }
            }
            group.cancelAll()
            guard let check else { return status }
            printViolations(after: violationsPrinted)
            printLine(check.summary)
            return check.monitor.violations.isEmpty ? status : Self.violationStatus
        }
    }

    /// Prints the monitor's violations from the `printed`-th on, in the words `explore` and
    /// `replay` use; returns how many are printed now.
    @discardableResult
    private func printViolations(after printed: Int) -> Int {
        guard let violations = check?.monitor.violations else { return printed }
        for violation in violations.dropFirst(printed) { printLine("violation: \(violation)") }
        return violations.count
    }

    /// Waits until every connection has finished its close handshake (or the grace ran out).
    private func waitForCloseHandshake() async {
        let deadline = clock.now + closeGrace
        while transport.live.current > 0, clock.now < deadline {
            try? await clock.sleep(for: .milliseconds(10))
        }
    }
}
