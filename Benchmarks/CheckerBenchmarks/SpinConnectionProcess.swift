/// The process of `Benchmarks/spin/connection.pml`, statement for statement: the inline
/// blocks are the arrays `teardown`, `startConnect` and `fail`, expanded where they are
/// called, as Promela expands inlines. Read it beside the `.pml`: each `option(…)` is one
/// `::` branch of its `do`, in the same order.
///
/// (Each option is appended on its own line with its type stated: one big array literal
/// of closures takes the type checker minutes.)
extension SpinConnectionModel {
    typealias Statement = PromelaProcess<PromelaVariables>.Statement
    typealias Variables = PromelaVariables

    /// `TOPICS`.
    static let topics = 2

    static func program(maxGeneration: Int, maxSequence: Int, maxFailures: Int) -> PromelaProcess<PromelaVariables> {
        let maxGen = maxGeneration, maxSeq = maxSequence, maxFail = maxFailures
        let topics = Self.topics
        // inline teardown()
        var teardown: [Statement] = []
        teardown.append(
            .choose([[.when("live > 0") { $0.live > 0 }, .assign("live--") { $0.live -= 1 }]], otherwise: [.skip]))
        teardown.append(.assign("pingOut = false") { $0.pingOut = false })
        teardown.append(.assign("handshakeDone = false") { $0.handshakeDone = false })
        teardown.append(.assign("subsSent = 0") { $0.subsSent = 0 })
        teardown.append(
            .choose(
                [[.when("gen < MAXGEN") { $0.gen < maxGen }, .assign("gen++") { $0.gen += 1 }]], otherwise: [.skip]))
        // inline startConnect()
        var startConnect: [Statement] = []
        startConnect.append(.assign("phase = CONNECTING") { $0.phase = .connecting })
        startConnect.append(.assign("live++") { $0.live += 1 })
        startConnect.append(.assert("live <= 1") { $0.live <= 1 })
        // inline fail()
        var fail: [Statement] = teardown
        fail.append(
            .choose(
                [[.when("failures < MAXFAIL") { $0.failures < maxFail }, .assign("failures++") { $0.failures += 1 }]],
                otherwise: [.skip]))
        fail.append(.assign("phase = WAITING") { $0.phase = .waiting })

        var loop: [[Statement]] = []
        func option(_ text: String, _ holds: @escaping @Sendable (Variables) -> Bool, _ body: [Statement]) {
            loop.append([.when(text, holds)] + body)
        }
        // user intents
        let connectOrWait: Statement = .choose(
            [[.when("foreground") { $0.foreground }] + startConnect],
            otherwise: [.assign("phase = BACKGROUND") { $0.phase = .background }])
        option(
            "!wanted && !terminal", { !$0.wanted && !$0.terminal },
            [.assign("wanted = true") { $0.wanted = true }, connectOrWait])
        let stop: [Statement] = [.assign("wanted = false") { $0.wanted = false }]
        option("wanted", { $0.wanted }, stop + teardown + [.assign("phase = STOPPED") { $0.phase = .stopped }])
        let background: [Statement] = [.assign("foreground = false") { $0.foreground = false }]
        option(
            "foreground && wanted && phase != STOPPED", { $0.foreground && $0.wanted && $0.phase != .stopped },
            background + teardown + [.assign("phase = BACKGROUND") { $0.phase = .background }])
        let resume: Statement = .choose(
            [[.when("wanted && phase == BACKGROUND") { $0.wanted && $0.phase == .background }] + startConnect],
            otherwise: [.skip])
        option("!foreground", { !$0.foreground }, [.assign("foreground = true") { $0.foreground = true }, resume])
        // transport events for the current generation
        option(
            "phase == CONNECTING && !handshakeDone && !frozen",
            { $0.phase == .connecting && !$0.handshakeDone && !$0.frozen },
            [.assign("handshakeDone = true") { $0.handshakeDone = true }])
        option(
            "phase == CONNECTING && handshakeDone && subsSent < TOPICS",
            { $0.phase == .connecting && $0.handshakeDone && $0.subsSent < topics },
            [.assign("subsSent++") { $0.subsSent += 1 }])
        option(
            "phase == CONNECTING && handshakeDone && subsSent == TOPICS",
            { $0.phase == .connecting && $0.handshakeDone && $0.subsSent == topics },
            [.assign("phase = OPEN") { $0.phase = .open }, .assign("failures = 0") { $0.failures = 0 }])
        option("phase == CONNECTING", { $0.phase == .connecting }, fail)  // handshake error or connect timeout
        let deliver: Statement = .choose(
            [
                [
                    .when("serverSeq == delivered + 1") { $0.serverSeq == $0.delivered + 1 },
                    .assign("delivered = serverSeq") { $0.delivered = $0.serverSeq },
                ]
            ],
            otherwise: [.skip])
        option(
            "phase == OPEN && !frozen && serverSeq < MAXSEQ",
            { $0.phase == .open && !$0.frozen && $0.serverSeq < maxSeq },
            [.assign("serverSeq++") { $0.serverSeq += 1 }, deliver])
        option(
            "phase == OPEN && !pingOut", { $0.phase == .open && !$0.pingOut },
            [.assign("pingOut = true") { $0.pingOut = true }])
        option(
            "phase == OPEN && pingOut && !frozen", { $0.phase == .open && $0.pingOut && !$0.frozen },
            [.assign("pingOut = false") { $0.pingOut = false }])  // pong
        option("phase == OPEN && pingOut", { $0.phase == .open && $0.pingOut }, fail)  // pong deadline missed
        option("phase == OPEN", { $0.phase == .open }, fail)  // reset, or close 1000/1001/1011
        var terminalClose: [Statement] = teardown  // close 4003
        terminalClose.append(.assign("phase = STOPPED") { $0.phase = .stopped })
        terminalClose.append(.assign("terminal = true") { $0.terminal = true })
        terminalClose.append(.assign("wanted = false") { $0.wanted = false })
        option("phase == OPEN", { $0.phase == .open }, terminalClose)
        let expire: [Statement] = [.assign("refreshing = true") { $0.refreshing = true }]
        option("phase == OPEN && !refreshing", { $0.phase == .open && !$0.refreshing }, expire + fail)  // close 4001
        option("refreshing", { $0.refreshing }, [.assign("refreshing = false") { $0.refreshing = false }])
        option(
            "phase == WAITING && !refreshing && foreground",
            { $0.phase == .waiting && !$0.refreshing && $0.foreground },
            startConnect)  // backoff elapsed
        // faults
        option("!frozen", { !$0.frozen }, [.assign("frozen = true") { $0.frozen = true }])
        option("frozen", { $0.frozen }, [.assign("frozen = false") { $0.frozen = false }])
        option("gen > 0", { $0.gen > 0 }, [.skip])  // a stale callback: changes nothing
        // resume: after reconnect the server replays from delivered
        option(
            "phase == OPEN && delivered < serverSeq", { $0.phase == .open && $0.delivered < $0.serverSeq },
            [.assign("delivered++") { $0.delivered += 1 }])
        return PromelaProcess(loop: loop)
    }
}
