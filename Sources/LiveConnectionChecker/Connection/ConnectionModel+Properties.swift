import LiveConnection
import LiveConnectionRules

// What the checker proves about the connection machine. Each `always` property reads
// either the evidence the environment recorded while following a step's effects, or the
// packed state itself.
extension ConnectionModel {
    public var properties: [Property<ConnectionModel>] {
        // Each property judges one rule of the catalogue and is named by it; its summary
        // says what the rule means in the model's terms.
        func byEvidence(_ rule: Rule, _ evidence: Evidence, _ summary: String) -> Property<ConnectionModel> {
            .always(
                rule.name, summary,
                violation: { state in
                    Environment.evidence(state.environment).isDisjoint(with: evidence) ? nil : summary
                })
        }
        let bounds = bounds
        var properties: [Property<ConnectionModel>] = [
            byEvidence(
                .staleInputsChangeNothing, .staleChangedMachine,
                "a late callback or timer of a dead generation leaves the machine's value unchanged"),
            byEvidence(
                .singleLiveTransport, .extraSocket,
                "after every step at most one socket is open or opening, and it is the live generation's"),
            byEvidence(
                .openOnlyAfterHandshake, .openBeforeHandshake,
                "open is reported only once the live connection's handshake completed"),
            byEvidence(
                .resubscribeBeforeOpen, .openBeforeResubscribe,
                "when open is reported, the server holds exactly the app's topics on the new connection"),
            byEvidence(
                .resumeBeforeOpen, .openBeforeResume,
                "with resume on, a connection that opens after an earlier open or a delivered sequenced message asks to resume before reporting open"
            ),
            byEvidence(
                .onePendingReconnect, .secondReconnect,
                "a reconnect is never scheduled while one is already pending"),
            byEvidence(
                .backoffWithinPolicy, [.delayOutOfPolicy, .attemptMisnumbered],
                "every retry delay lies within the published formula's range (both bounds) for the failures since the connection last proved itself (answered a heartbeat), and connecting and open report the attempt by that count (failures + 1)"
            ),
            byEvidence(
                .quietAfterStop, .activityAfterTerminal,
                "a terminal close or handshake status stops the machine, and nothing opens until connect(to:)"),
            byEvidence(
                .stoppedLeftOnlyByConnect, .leftStoppedWithoutConnect,
                "stopped is left only through connect(to:)"),
            byEvidence(
                .commandsCompletedOnce, .completedTwice,
                "each command's outcome is reported exactly once"),
            byEvidence(
                .commandsAtMostOnce, .sentTwice, "a command's frame is never sent twice"),
            byEvidence(
                .commandsNeverHang, .commandHangs,
                "a command is answered at once or rides an open socket; it never outlives its connection"),
            byEvidence(
                .timersDieWithConnection, .timerOfDeadConnection,
                "a connection's timers are cancelled when it ends"),
            byEvidence(
                .exactlyOnceInOrder, .deliveryNotNext,
                "with resume on, the app is handed the server's log once each, in order, from where its stream began: every sequenced message delivered is the next one (no repeat, no reordering, and no skip: the model's log loses nothing)"
            ),
            byEvidence(
                .oneRefreshAtATime, .secondRefresh,
                "the credentials provider is never asked again before it answered"),
            byEvidence(
                .endpointOfLastConnect, .wrongEndpoint,
                "every connection is opened to the endpoint of the app's last connect(to:), and one held for another endpoint is given up at the request"
            ),
            byEvidence(
                .timersArmedAsConfigured, .timerMisarmed,
                "the connect timeout, heartbeat and pong deadline are armed for the configured C, P and T"),
            byEvidence(
                .expiredCredentialsRefreshed, .expiredNotRefreshed,
                "a live close 4001 or handshake 401 asks for fresh credentials (unless a refresh is pending), arming no retry and opening nothing"
            ),
            byEvidence(
                .quietWithoutPath, .activeWithoutPath,
                "after the app reported the network path unviable, nothing is dialled and no retry armed"),
            byEvidence(
                .reconnectsWhenPathReturns, .pathReturnIgnored,
                "when the app reports the path back while it wants a connection in the foreground, with no socket and no refresh under way, the same step dials"
            ),
            byEvidence(
                .pingsAnsweredOnce, .pingMisanswered,
                "the app's ping is answered exactly once: at once without an open connection, else by the first of its pong (alive), its deadline, armed for the timeout asked (no answer), and its connection's end (failed); a pong after the answer changes nothing"
            ),
            .always(
                Rule.quietInBackground.name,
                "after the app went to the background, no socket is open or opening and no retry is armed",
                violation: Self.activeInBackground),
            .always(
                Rule.phaseMatchesSocket.name,
                "connecting has an opening socket, open an open one, every other phase none",
                violation: Self.phaseMismatch),
            .always(
                Rule.progressIsArmed.name,
                "connecting and subscribing have the connect timeout armed (and subscribing a flush outstanding), open its heartbeat (and pong deadline while a ping is unanswered), waiting its retry, refreshing a pending refresh",
                violation: Self.progressUnarmed),
            .eventually(
                Rule.noDeadlock.name,
                "a wanted, foregrounded connection on a healthy network can always still reach open",
                from: { state in
                    let environment = Environment(state.environment)
                    return MachineCodebook.wanted(state.machine) && MachineCodebook.foreground(state.machine)
                        && environment.network == .up && !environment.pathDown && environment.evidence.isEmpty
                },
                // A path that breaks an `always` property on the way is that property's
                // counterexample, not a deadlock (the search expands nothing after evidence of a broken rule).
                reaches: {
                    MachineCodebook.kind($0.machine) == .open || MachineCodebook.kind($0.machine) == .openAwaitingPong
                        || !Environment.evidence($0.environment).isEmpty
                },
                within: 6 + bounds.topics,
                via: { action in
                    switch action {
                    case .input(.timerFired(.retry)), .input(.opened), .input(.flushed),
                        .input(.credentialsRefreshed(succeeded: true)):
                        true
                    default: false
                    }
                }),
            .sometimes("reaches-open", "a connection opens") { MachineCodebook.kind($0.machine) == .open },
            .sometimes("reaches-waiting", "a failure leads to a backoff wait") {
                MachineCodebook.kind($0.machine) == .waiting
            },
            .sometimes("reaches-refreshing", "4001 or 401 leads to a credentials refresh") {
                MachineCodebook.kind($0.machine) == .refreshing
            },
            .sometimes("reaches-terminal-stop", "a terminal close stops the machine") {
                MachineCodebook.kind($0.machine) == .stopped && Environment($0.environment).terminal
            },
        ]
        if bounds.lifecycle {
            properties.append(
                .sometimes("reaches-background", "backgrounding closes the socket but keeps wanting it") {
                    MachineCodebook.kind($0.machine) == .backgrounded && MachineCodebook.wanted($0.machine)
                })
        }
        if bounds.networkPath {
            properties.append(
                .sometimes("reaches-offline", "losing the path while wanted waits offline") {
                    MachineCodebook.kind($0.machine) == .offline
                })
        }
        if bounds.commands > 0 {
            properties.append(
                .sometimes("command-in-flight", "a command rides an open connection") {
                    MachineCodebook.commandsInFlight($0.machine) > 0
                })
        }
        if bounds.pings > 0 {
            properties.append(
                .sometimes("ping-in-flight", "an app ping rides an open connection") {
                    MachineCodebook.pingsInFlight($0.machine) > 0
                })
        }
        if bounds.topics > 0 {
            properties.append(
                .sometimes("open-with-every-topic", "a connection opens with every topic subscribed") {
                    MachineCodebook.kind($0.machine) == .open && MachineCodebook.topicCount($0.machine) == bounds.topics
                })
        }
        if bounds.serverLog > 1 {
            properties.append(
                .sometimes("resumes-after-reconnect", "a reconnected client gets the rest of the log") {
                    MachineCodebook.lastSequence($0.machine) == UInt64(bounds.serverLog)
                        && Environment($0.environment).olderGeneration
                })
        }
        if bounds.staleCallbacks {
            properties.append(
                .sometimes("dead-generation-exists", "late callbacks have a dead generation to come from") {
                    Environment($0.environment).olderGeneration
                })
        }
        return properties
    }
}

extension ConnectionModel {
    /// Every `always` property of this model reads the evidence mask or the two checks below (a
    /// new property must be covered here too; a test walks a space to check it):
    /// the checker evaluates the properties one by one only when one of them fails.
    public func invariantsMayFail(in state: State) -> Bool {
        !Environment.evidence(state.environment).isEmpty || Self.phaseMismatch(state) != nil
            || Self.progressUnarmed(state) != nil || Self.activeInBackground(state) != nil
    }

    /// quiet-in-background: judged from what the environment delivered (the app said
    /// "background" last) and what the machine's effects left open and armed.
    static func activeInBackground(_ state: State) -> String? {
        let environment = Environment(state.environment)
        guard environment.background else { return nil }
        if environment.socket != .none { return "in the background with a socket \(environment.socket)" }
        if environment.retryArmed { return "in the background with a retry armed" }
        return nil
    }

    /// phase-matches-socket: connecting has an opening socket, subscribing and open an
    /// open one, every other phase none.
    static func phaseMismatch(_ state: State) -> String? {
        let socket = Environment(state.environment).socket
        let expected: Environment.Socket
        switch MachineCodebook.kind(state.machine) {
        case .connecting: expected = .connecting
        case .subscribing, .open, .openAwaitingPong: expected = .open
        default: expected = .none
        }
        return socket == expected ? nil : "phase \(MachineCodebook.kind(state.machine)) with socket \(socket)"
    }

    /// progress-is-armed: each phase that waits for something has the timer or request
    /// that ends the wait.
    static func progressUnarmed(_ state: State) -> String? {
        let environment = Environment(state.environment)
        let timers = environment.liveTimers
        switch MachineCodebook.kind(state.machine) {
        case .connecting where timers & Environment.connectTimeoutBit == 0:
            return "connecting without a connect timeout"
        case .subscribing where timers & Environment.connectTimeoutBit == 0:
            return "subscribing without a connect timeout"
        case .subscribing where environment.flushes == 0: return "subscribing with no flush outstanding"
        case .open where timers & Environment.heartbeatBit == 0: return "open without a heartbeat"
        case .openAwaitingPong where timers & Environment.heartbeatBit == 0:
            return "open without a heartbeat"
        case .openAwaitingPong where timers & Environment.pongDeadlineBit == 0:
            return "a ping without a deadline"
        case .waiting where !environment.retryArmed: return "waiting without a retry armed"
        case .refreshing where !environment.refreshPending: return "refreshing without a refresh pending"
        default: return nil
        }
    }
}
