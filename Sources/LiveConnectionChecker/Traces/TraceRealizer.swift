import LiveConnection
import LiveConnectionTraces

/// Lays a counterexample of the connection model out in virtual time, as the actions a
/// simulated server, network and app must take for the real shell to live the same steps.
///
/// The model abstracts time away; the simulator has it back. The realizer keeps the clock
/// the model does not have: when each socket was requested, when each armed timer is due,
/// when each ping left. With a one-way latency of ``latency``, a handshake completes two
/// latencies after its request, a frame one latency after the server sends it, and a pong
/// two after its ping; timers fire when due. From that:
///
/// - app intents happen at the current instant;
/// - handshakes hang by default, and each one the model completes is released at the
///   instant the model completes it (`hang-handshakes off`, on again half a latency
///   later); one the model fails is failed with its status (`fail-handshakes`);
/// - a timer step moves the clock to the timer's deadline, a pong step to its ping's
///   round trip, a close or reset by the server to one latency after it was sent;
/// - a ping whose pong the model never delivers is held back by freezing the network
///   until that connection is gone;
/// - transport completions (flush, send), resume replays and credential refreshes happen
///   by themselves;
/// - the server's log is the feed of a topic the app subscribes at the start and never
///   leaves (the model's log belongs to no topic the model's app toggles), and each
///   `server broadcasts` step broadcasts on it;
/// - a late callback is armed on the socket it comes from, before the step that ends that
///   socket (a late open before the step that requests it): `stale KIND after=D`, where D
///   is how long after the socket's close the model delivers it. The old connection then
///   delivers it on its own stream, through the shell's receive loop or ping task, as a
///   real socket whose closing handshake lingers does.
///
/// After the last step the run goes on for ``aftermath``, with hung handshakes released
/// and everything else as the counterexample left it, so that the simulator's timed
/// invariants (a dead peer detected within P + T, open again within the liveness bound)
/// can judge what the machine's state leads to.
///
/// What the simulated world cannot do (a plain message with no sequence number, a failed
/// credentials refresh, a late timer) is recorded as a gap: the trace is still written,
/// and the replay says how far the shell followed.
struct TraceRealizer {
    /// One-way latency of the simulated network: long enough to place actions between a
    /// request and its answer, short next to every timer of the model's configuration.
    static let latency = Duration.milliseconds(1)

    let steps: [ConnectionReplay.Step]
    let endpoints: [Endpoint]
    let feedTopic: String
    /// The app subscribes the feed topic at the start (a counterexample that logs messages).
    let subscribesFeed: Bool
    /// How long the run goes on after the counterexample's last step.
    let aftermath: Duration

    private(set) var schedule: [ScheduledAction] = []
    private(set) var gaps: [String] = []
    private(set) var now: Duration = .zero
    private var timers: [(timer: TimerID, due: Duration)] = []
    private var requestedAt: [Generation: Duration] = [:]
    private var pingedAt: [Generation: Duration] = [:]
    private var appPingedAt: [Generation: Duration] = [:]
    private var lastServerSend: Duration = .zero
    /// The connection whose pong a freeze holds back, and when the freeze began.
    private var frozen: (g: Generation, since: Duration)?
    private var subscribed: [String] = []
    /// Where each step began: the length of the schedule then, and the instant.
    private var stepStart: (index: Int, at: Duration) = (0, .zero)
    /// Per generation: where the step that requested its socket began.
    private var requested: [Generation: (index: Int, at: Duration)] = [:]
    /// Per generation: where the step that closed its socket began, and its instant.
    private var closed: [Generation: (index: Int, at: Duration, closedAt: Duration)] = [:]
    /// Generations whose handshake the model completed.
    private var opened: Set<Generation> = []
    /// Late callbacks to arm, each before the schedule entry at `index` (placed in the schedule at the end).
    private var arms: [(index: Int, action: ScheduledAction)] = []

    /// The feed topic of a counterexample whose server logs messages: none of the model's topics.
    static let logTopic = "feed"

    init(
        steps: [ConnectionReplay.Step], endpoints: [Endpoint], feedTopic: String, subscribesFeed: Bool = false,
        aftermath: Duration
    ) {
        self.steps = steps
        self.endpoints = endpoints
        self.feedTopic = feedTopic
        self.subscribesFeed = subscribesFeed
        self.aftermath = aftermath
    }

    /// When the run ends: the aftermath after the last step.
    var end: Duration { lastStep + Self.latency + aftermath }
    private var lastStep: Duration = .zero

    mutating func realize() {
        emit(.setLatency(Self.latency), at: .zero)
        emit(.hangHandshakes(true), at: .zero)
        if subscribesFeed { emit(.subscribe(feedTopic), at: .zero) }
        for index in steps.indices {
            stepStart = (schedule.count, now)
            place(steps[index])
            for effect in steps[index].effects { follow(effect, after: index) }
        }
        lastStep = now
        emit(.hangHandshakes(false), at: now + Self.latency)
        // The arms go in last, each before the step it must precede (the trace sorts stably by time).
        for arm in arms.reversed() { schedule.insert(arm.action, at: arm.index) }
    }

    // MARK: Steps

    private mutating func place(_ step: ConnectionReplay.Step) {
        let number = step.number
        switch step.action {
        case .input(let input): place(input, step: number)
        case .late(let input): placeLate(input, step: number)
        case .network:
            break  // Each socket's fate is set where it is requested (see `follow`).
        case .broadcast(let sequence):
            let topic = subscribesFeed ? feedTopic : subscribed.first ?? feedTopic
            emit(.broadcast(topic: topic, text: "message \(sequence)"), at: now)
            lastServerSend = now
        }
    }

    private mutating func place(_ input: Input, step: Int) {
        let l = Self.latency
        switch input {
        case .connect(let endpoint):
            guard let index = endpoints.firstIndex(of: endpoint) else {
                return gap(step, "connects to \(endpoint), which the model does not offer")
            }
            emit(.connect(endpoint: index), at: now)
        case .disconnect: emit(.disconnect, at: now)
        case .setForeground(let foreground): emit(.setForeground(foreground), at: now)
        case .setPathViable(let viable): emit(.path(viable: viable), at: now)
        case .subscribe(let topic):
            emit(.subscribe(topic), at: now)
            if !subscribed.contains(topic) { subscribed.append(topic) }
        case .unsubscribe(let topic):
            emit(.unsubscribe(topic), at: now)
            subscribed.removeAll { $0 == topic }
        case .send(let id): emit(.send(text: "command \(id.rawValue)"), at: now)
        case .opened(let g):
            opened.insert(g)
            let completes = advance(to: (requestedAt[g] ?? now) + l * 2, step: step, what: "the handshake completes")
            emit(.hangHandshakes(false), at: completes)
            emit(.hangHandshakes(true), at: completes + l / 2)
            lastServerSend = completes
        case .connectFailed(let g, _):
            // The status was set when the socket was requested; the answer comes one round trip later.
            let answered = (requestedAt[g] ?? now) + l * 2
            if answered < now {
                gap(
                    step,
                    "the server answers \(g)'s handshake at \(answered.traceFormatted), before this step's instant")
            }
            _ = advance(to: answered, step: step, what: "the handshake fails")
        case .pong(let g):
            _ = advance(to: (pingedAt[g] ?? now) + l * 2, step: step, what: "the pong arrives")
        case .received(_, _, let sequence):
            if sequence == nil { gap(step, "a message with no sequence number (the simulated server numbers all)") }
            _ = advance(to: lastServerSend + l, step: step, what: "the message arrives")
        case .closedByPeer(_, let code, let reason):
            emit(.closeConnection(code: code, reason: reason), at: now)
            _ = advance(to: now + l, step: step, what: "the close frame arrives")
        case .failed:
            emit(.resetConnection, at: now)
            _ = advance(to: now + l, step: step, what: "the reset arrives")
        case .sendCompleted, .flushed:
            break  // The simulated transport completes a write as it takes it.
        case .ping(_, let timeout): emit(.ping(timeout: timeout), at: now)
        case .pingAnswered(let g, _):
            // The server answers at once: the pong is back one round trip after the ping left.
            let arrives = (appPingedAt[g] ?? now) + l * 2
            if arrives < now {
                gap(step, "the app ping's pong arrives at \(arrives.traceFormatted), before this step's instant")
            }
            _ = advance(to: arrives, step: step, what: "the app ping's pong arrives")
        case .timerFired(let timer):
            guard let due = timers.first(where: { $0.timer == timer })?.due else {
                return gap(step, "timer \(timer) fires but is not armed")
            }
            _ = advance(to: due, step: step, what: "timer \(timer) fires")
            timers.removeAll { $0.timer == timer }
        case .credentialsRefreshed(let succeeded):
            if !succeeded { gap(step, "a failed credentials refresh (the simulated manager has no provider to fail)") }
        }
    }

    private mutating func placeLate(_ input: Input, step: Int) {
        guard let g = input.generation else { return gap(step, "a late \(input) of no generation") }
        let kind: StaleCallback
        switch input {
        case .opened:
            // The attempt's handshake completes although the shell gave it up: armed before
            // the step that requested it, so it is the next attempt the network sees.
            guard let request = requested[g] else { return gap(step, "a late open of \(g), never requested") }
            arms.append((request.index, ScheduledAction(at: request.at, .deliverStale(.open))))
            return
        case .received: kind = .message
        case .failed: kind = .error
        case .closedByPeer: kind = .close
        case .pong: kind = .pong
        default:
            return gap(step, "a late \(input) (the simulator delivers late opens, messages, errors, closes, pongs)")
        }
        guard opened.contains(g), let close = closed[g] else {
            return gap(step, "a late \(input) of \(g), which never held an open socket that closed")
        }
        // Armed while the socket is held, before the step that closes it; its close lingers
        // until this step's instant.
        let linger = now - close.closedAt
        arms.append((close.index, ScheduledAction(at: close.at, .deliverStale(kind, after: linger))))
    }

    // MARK: Effects

    private mutating func follow(_ effect: Effect, after index: Int) {
        let l = Self.latency
        switch effect {
        case .startTimer(let timer, let delay):
            timers.removeAll { $0.timer == timer }
            timers.append((timer, now + delay))
        case .cancelTimer(let timer):
            timers.removeAll { $0.timer == timer }
        case .openConnection(let g, _):
            requestedAt[g] = now
            requested[g] = stepStart
            // The socket's fate is the first thing the model does with it.
            if let status = handshakeFailure(of: g, after: index) {
                emit(.failHandshakes(status: status), at: now + l)
                emit(.failHandshakes(status: nil), at: now + l * 2 + l / 2)
            }
        case .ping(let g):
            pingedAt[g] = now
            if !pongArrives(for: g, after: index) { holdPongs(of: g) }
        case .sendPing(let g, _):
            appPingedAt[g] = now
            if !pongArrives(for: g, after: index, app: true) { holdPongs(of: g) }
        case .closeConnection(let g, _, _):
            closed[g] = (stepStart.index, stepStart.at, now)
            if let hold = frozen, hold.g == g {
                emit(.thaw, at: max(now, hold.since) + l / 2)
                frozen = nil
            }
        default: break
        }
    }

    /// The status the model fails `g`'s handshake with, if it does.
    private func handshakeFailure(of g: Generation, after index: Int) -> Int? {
        for step in steps[(index + 1)...] {
            guard case .input(let input) = step.action, input.generation == g else { continue }
            if case .connectFailed(_, .handshakeRejected(let status)) = input { return status }
            return nil
        }
        return nil
    }

    /// Freezes the network one latency from now, so `g`'s pongs never come back.
    private mutating func holdPongs(of g: Generation) {
        guard frozen?.g != g else { return }
        emit(.freeze, at: now + Self.latency)
        frozen = (g, now + Self.latency)
    }

    /// Whether the model delivers `g`'s pong (of the heartbeat, or of the app's ping) before
    /// the connection goes.
    private func pongArrives(for g: Generation, after index: Int, app: Bool = false) -> Bool {
        for step in steps[(index + 1)...] {
            if !app, case .input(.pong(g)) = step.action { return true }
            if app, case .input(.pingAnswered(g, _)) = step.action { return true }
            if step.effects.contains(where: { if case .closeConnection(g, _, _) = $0 { true } else { false } }) {
                return false
            }
        }
        return false
    }

    // MARK: Time

    /// Moves the clock to `instant` (never back), noting any armed timer that real time
    /// would fire first.
    private mutating func advance(to instant: Duration, step: Int, what: String) -> Duration {
        let target = max(now, instant)
        if let early = timers.filter({ $0.due < target && $0.due >= now }).min(by: { $0.due < $1.due }) {
            gap(step, "\(what) at \(target.traceFormatted), but \(early.timer) is due at \(early.due.traceFormatted)")
        }
        now = target
        return target
    }

    private mutating func emit(_ action: SimulationAction, at instant: Duration) {
        schedule.append(ScheduledAction(at: instant, action))
    }

    private mutating func gap(_ step: Int, _ text: String) {
        gaps.append("step \(step): \(text)")
    }
}
