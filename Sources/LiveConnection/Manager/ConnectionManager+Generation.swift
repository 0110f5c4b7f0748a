// One generation's connection job: connect, then write orders and read events until closed.
extension ConnectionManager {
    /// Runs as a child task of ``run()``, off the actor; every callback re-enters through
    /// the machine tagged with `g`, so a late one from an old generation changes nothing.
    nonisolated func runGeneration(_ g: Generation, _ endpoint: Endpoint, _ handle: GenerationHandle) async {
        let connection: any TransportConnection
        do throws(TransportError) {
            connection = try await transport.connect(to: endpoint, generation: g)
        } catch {
            await process(.connectFailed(g, error))
            return
        }
        guard await connectionOpened(g, handle, connection.handshake) else {
            // Abandoned while the handshake was finishing: never keep two sockets.
            await connection.close(code: .normal, reason: "stale connection")
            return
        }
        await withDiscardingTaskGroup { group in
            group.addTask { await self.receiveLoop(g, connection, handle) }
            var closed = false
            // A failed write is not reported: the receive loop reports the connection's end
            // with its real reason. Reporting the write's error first hid a terminal close
            // frame (4003 during resubscription: the manager reconnected after being told
            // to stop; found from the wire by `livesim explore --client manager`). A socket
            // that only fails writes misses its pong deadline. Nothing after a failed write
            // is sent or flushed: a flush would report open without the subscriptions.
            var writesFailed = false
            orders: while let order = await handle.orders.next() {
                switch order {
                case .send(let message, let command):
                    guard !writesFailed else { continue }  // its command is answered at teardown
                    do throws(TransportError) {
                        try await connection.send(message)
                        if let command { await process(.sendCompleted(g, command)) }
                    } catch {
                        writesFailed = true
                    }
                case .flush:
                    guard !writesFailed else { continue }
                    await process(.flushed(g))
                case .ping:
                    // Written here, in order with the sends: its pong comes through the
                    // receive loop, so a heartbeat needs no task of its own. A failed ping
                    // needs no report: the receive loop reports the failure.
                    await writePing(.heartbeat, on: connection, handle)
                case .appPing(let id):
                    // A failed app ping is answered by the teardown the receive loop reports.
                    await writePing(.app(id), on: connection, handle)
                case .close(let code, let reason):
                    await connection.close(code: code, reason: reason)
                    closed = true
                    break orders
                }
            }
            if !closed {
                // Cancelled before the loop read a close the machine ordered: that close, not the shutdown's.
                let close = handle.orderedClose ?? CloseFrame(code: .goingAway, reason: "shutting down")
                await connection.close(code: close.code, reason: close.reason)
            }
            group.cancelAll()
        }
    }

    /// Writes one ping, numbered so that its pong tells which pings it answers.
    nonisolated func writePing(
        _ purpose: SentPings.Purpose, on connection: any TransportConnection, _ handle: GenerationHandle
    )
        async
    {
        let number = handle.recordPing(purpose)
        do throws(TransportError) {
            try await connection.ping(number)
        } catch {
            handle.forgetPing(number)
        }
    }

    nonisolated func receiveLoop(_ g: Generation, _ connection: any TransportConnection, _ handle: GenerationHandle)
        async
    {
        while true {
            do throws(TransportError) {
                switch try await connection.receive() {
                case .message(let message):
                    await received(g, message)
                case .pong(let number):
                    // One hop for every ping it answers; a pong for none of ours changes nothing.
                    let answered = handle.answerPings(upTo: number)
                    if !answered.isEmpty { await pongArrived(g, answering: answered) }
                case .closed(let code, let reason):
                    await process(.closedByPeer(g, code: code, reason: reason))
                    return
                }
            } catch {
                // Cancelled because the generation ended: the machine already knows.
                if Task.isCancelled { return }
                await process(.failed(g, error))
                return
            }
        }
    }

    /// A pong arrived on `g`: each ping it answers becomes the machine's input for it, oldest
    /// first, so the machine keeps owning the pong deadline and the app pings' outcomes.
    func pongArrived(_ g: Generation, answering pings: [SentPings.Purpose]) {
        for ping in pings {
            switch ping {
            case .heartbeat: process(.pong(g))
            case .app(let id): process(.pingAnswered(g, id))
            }
        }
    }

    /// Marks the generation open (keeping its handshake for the app) and tells the machine;
    /// false if it was abandoned.
    func connectionOpened(_ g: Generation, _ handle: GenerationHandle, _ handshake: Handshake) -> Bool {
        guard generations[g] === handle else {
            process(.opened(g))
            return false
        }
        handle.markOpen()
        handshakes[g] = handshake
        process(.opened(g))
        return true
    }
}
