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
        // Discarding: a connection that lives for days pings thousands of times, and a plain
        // group would keep every finished ping task until the generation ends.
        await withDiscardingTaskGroup { group in
            group.addTask { await self.receiveLoop(g, connection) }
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
                    group.addTask {
                        // A failed ping needs no report: the receive loop reports the failure.
                        do { try await connection.ping() } catch { return }
                        await self.process(.pong(g))
                    }
                case .appPing(let id):
                    group.addTask {
                        // A failed ping needs no report either: the receive loop reports the
                        // failure, whose teardown answers the ping.
                        do { try await connection.ping() } catch { return }
                        await self.process(.pingAnswered(g, id))
                    }
                case .close(let code, let reason):
                    await connection.close(code: code, reason: reason)
                    closed = true
                    break orders
                }
            }
            if !closed { await connection.close(code: .goingAway, reason: "shutting down") }
            group.cancelAll()
        }
    }

    nonisolated func receiveLoop(_ g: Generation, _ connection: any TransportConnection) async {
        while true {
            do throws(TransportError) {
                switch try await connection.receive() {
                case .message(let message):
                    await received(g, message)
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
