import Foundation
import LiveConnection

/// One `livesim connect` run: the manager's events, the clock and the signals merged into
/// one sequence of occurrences, each mapped to what to print and whether to stop.
struct ConnectSession: Sendable {
    let manager: ConnectionManager
    let transport: TrackedTransport
    private let clock = ContinuousClock()
    /// The transport's close timeout (2 s) and a margin: how long a stop waits for the server's close.
    private let closeGrace: Duration = .seconds(3)

    init(manager: ConnectionManager, transport: TrackedTransport) {
        self.manager = manager
        self.transport = transport
    }

    /// What can happen while connected.
    private enum Occurrence: Sendable {
        case event(ConnectionEvent)
        case durationElapsed
        case signal(Int32)
        /// The close handshake did not finish in time after we asked to stop.
        case stopDeadline
    }

    /// Why we asked the manager to disconnect, and the exit status that goes with it.
    private struct Stop {
        var status: Int32
        var why: String
    }

    /// Runs until the session ends; returns the exit status.
    func run(endpoint: Endpoint, topics: [String], duration: Duration?) async -> Int32 {
        let start = clock.now
        let signals = InterruptSignals()
        defer { signals.restoreDefaults() }
        let (occurrences, feed) = AsyncStream.makeStream(of: Occurrence.self)
        return await withTaskGroup(of: Void.self) { group in
            group.addTask { await manager.run() }
            let events = await manager.events()
            group.addTask {
                for await event in events { feed.yield(.event(event)) }
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
            loop: for await occurrence in occurrences {
                var request: Stop?
                switch occurrence {
                case .event(let event):
                    let seconds = Double(start.duration(to: clock.now).nanoseconds) / 1e9
                    // Unbuffered, so a pipe sees each event as it happens.
                    FileHandle.standardOutput.write(Data((String(format: "%8.3f ", seconds) + "\(event)\n").utf8))
                    switch event {
                    case .phase(.stopped(let reason, _)):
                        if let stopping {
                            await waitForCloseHandshake()
                            print("stopped (\(stopping.why))")
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
                    print("stopped (\(stopping?.why ?? "deadline")); the close handshake did not finish in time")
                    status = stopping?.status ?? 1
                    break loop
                }
                if let request, stopping == nil {
                    stopping = request
                    if request.status == 1 { standardError("livesim connect: \(clipped(request.why, to: 300))") }
                    await manager.disconnect()
                    group.addTask {
                        guard (try? await clock.sleep(for: closeGrace)) != nil else { return }
                        feed.yield(.stopDeadline)
                    }
                }
            }
            group.cancelAll()
            return status
        }
    }

    /// Waits until every connection has finished its close handshake (or the grace ran out).
    private func waitForCloseHandshake() async {
        let deadline = clock.now + closeGrace
        while transport.live.current > 0, clock.now < deadline {
            try? await clock.sleep(for: .milliseconds(10))
        }
    }
}
