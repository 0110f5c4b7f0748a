public import LiveConnection
import LiveServerContract
import SimulationKernel

/// One client end of a ``SimulatedNetwork`` connection.
///
/// ```swift
/// let connection = try await network.connect(to: endpoint)
/// try await connection.send(.text(#"{"type":"subscribe","topic":"feed"}"#))
/// let event = try await connection.receive()   // waits, in virtual time, for the next frame
/// ```
///
/// Every method honours task cancellation by throwing `cancelled`, the way
/// the manager abandons a connection. Waiting happens on the connection's doorbell or on
/// the virtual clock, inside the caller's task.
public struct SimulatedConnection: TransportConnection {
    let network: SimulatedNetwork
    let index: Int

    /// The connection's number at the server (from 1, in order of attempts).
    public var id: Int { index + 1 }

    public func send(_ message: Message) async throws(TransportError) {
        let now = network.clock.now
        let (bell, delay, deliveredBefore) = try network.state.withLock {
            (state) throws(TransportError) -> (Doorbell, Bool, Int) in
            let link = state.links[index]
            if link.clientClosedAt != nil { throw .notConnected }
            if link.endedByServerAt != nil, !link.endingInFlight {
                state.record(.told(socket: id, code: nil), at: now)
                throw link.endingError ?? .notConnected
            }
            state.links[index].settleIdle(timeout: state.idleTimeout, now: now)
            state.record(.sent(socket: id, text: Self.wireText(message)), at: now)
            if case .text(let text) = message, case .subscribe(let topic) = ContractFrame(text) {
                state.links[index].sentSubscribes.append(topic)
            }
            // A silent peer (or one that already closed) takes nothing: the frame is written into the void.
            if !state.isSilent(state.links[index]), link.endedByServerAt == nil {
                state.touch(index, now: now)
                switch state.server.handle(message, from: index + 1) {
                case .none: break
                case .replay(let entries):
                    for entry in entries {
                        state.links[index].enqueue(.success(.message(entry.message)), now: now, latency: state.latency)
                    }
                case .refuse(let reason):
                    // The same answer as the real server's: an error frame, the connection kept.
                    state.links[index].enqueue(
                        .success(.message(LiveContract.errorFrame(reason))), now: now, latency: state.latency)
                }
            }
            let delay = state.delayNextSend
            if delay {
                state.links[index].stalledSends += 1
                state.delayNextSend = false
                state.lastSendDelayedAt = now
                state.statistics.sendsDelayed += 1
            }
            return (state.links[index].doorbell, delay, state.links[index].delivered)
        }
        network.ringWire()
        guard delay else { return }
        // Complete only after the next receive returned, or the connection ended; at most
        // a second later, so a quiet server cannot hold the writer (and the close queued
        // behind it) forever.
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await network.clock.sleep(for: .seconds(1)) }
            group.addTask {
                while !Task.isCancelled {
                    let epoch = bell.epoch
                    let done = network.state.withLock { state in
                        let link = state.links[index]
                        return link.delivered > deliveredBefore || link.clientClosedAt != nil
                            || link.endedByServerAt != nil
                    }
                    if done { return }
                    await bell.wait(after: epoch)
                }
            }
            await group.next()
            group.cancelAll()
        }
        let end = network.clock.now
        network.state.withLock { state in
            state.links[index].stalledSends -= 1
            state.links[index].lastStallEndedAt = end
        }
    }

    public func receive() async throws(TransportError) -> TransportEvent {
        enum Step {
            case deliver(Result<TransportEvent, TransportError>)
            /// A pong to one of our pings.
            case pong(UInt64)
            /// A late callback that a close lingering for it waits to see taken.
            case lateWake(TransportEvent)
            case park
            case sleep(until: VirtualClock.Instant)
            case fail(TransportError)
        }
        while true {
            let bell = network.state.withLock { $0.links[index].doorbell }
            let epoch = bell.epoch
            let now = network.clock.now
            let step = network.state.withLock { (state) -> Step in
                if state.links[index].clientClosedAt != nil {
                    // Closed by the client: only an armed late callback still arrives (data
                    // already read from the socket, or what the closing handshake brings),
                    // and the shell's receive loop hands it on, tagged with its now stale
                    // generation.
                    guard let late = state.links[index].late, late.kind != .open,
                        late.kind != .pong || !state.links[index].pingsInFlight.isEmpty
                    else {
                        state.links[index].receiverGone = true
                        return .fail(.notConnected)
                    }
                    guard late.isDue else { return .park }
                    state.links[index].late = nil
                    state.statistics.lateCallbacks += 1
                    switch late.kind {
                    case .message:
                        let entry = state.server.log.last
                        return .deliver(.success(.message(entry?.message ?? .text(#"{"text":"late"}"#))))
                    case .close:
                        state.links[index].receiverGone = true
                        return .deliver(.success(.closed(code: .internalError, reason: "late close")))
                    case .pong:
                        // The pong to the oldest ping still in flight, read after the close.
                        let number = state.links[index].pingsInFlight.removeFirst().number
                        return .lateWake(.pong(number))
                    case .error, .open:
                        state.links[index].receiverGone = true
                        return .deliver(.failure(.reset(errno: "ECONNRESET")))
                    }
                }
                state.links[index].settleIdle(timeout: state.idleTimeout, now: now)
                // A silent peer never answers; a thaw lets what waits (frames, pongs) through.
                if state.isSilent(state.links[index]) { return .park }
                let head = state.links[index].inbox.first
                // A pong travels apart from the frames (its ping's round trip, not one way),
                // and none comes from a server that ended the connection; a frame due at the
                // same instant goes first.
                if state.links[index].endedByServerAt == nil, let pong = state.links[index].pingsInFlight.first,
                    head.map({ $0.deliverAt > pong.dueAt }) ?? true
                {
                    if pong.dueAt > now { return .sleep(until: pong.dueAt) }
                    state.links[index].pingsInFlight.removeFirst()
                    state.touch(index, now: now)
                    state.statistics.pongs += 1
                    state.record(.ponged(socket: id), at: now)
                    return .pong(pong.number)
                }
                guard let head else { return .park }
                if head.deliverAt > now { return .sleep(until: head.deliverAt) }
                state.links[index].inbox.removeFirst()
                state.links[index].delivered += 1
                state.touch(index, now: now)
                state.statistics.framesDelivered += 1
                switch head.event {
                case .success(.message): break
                case .success(.pong): break  // never queued: pongs wait in pingsInFlight
                case .success(.closed(let code, let reason)):
                    state.links[index].serverCloseDelivered = CloseFrame(code: code, reason: reason)
                    state.record(.told(socket: id, code: code), at: now)
                    state.links[index].receiverGone = true
                case .failure:
                    state.record(.told(socket: id, code: nil), at: now)
                    state.links[index].receiverGone = true
                }
                return .deliver(head.event)
            }
            switch step {
            case .deliver(let event):
                bell.ring()  // a delayed send waits for this
                network.ringWire()
                return try event.get()
            case .pong(let number):
                network.ringWire()
                return .pong(number)
            case .lateWake(let event):
                bell.ring()  // a close that lingers for a late callback waits for this
                network.ringWire()
                return event
            case .park:
                if Task.isCancelled { throw readerCancelled() }
                await bell.wait(after: epoch)
            case .sleep(let instant):
                do { try await network.clock.sleep(until: instant) } catch { throw readerCancelled() }
            case .fail(let error):
                throw error
            }
        }
    }

    /// Writes a ping; its pong comes back through ``receive()`` a round trip later, or once
    /// a frozen peer thaws, and never from a server that ended the connection.
    public func ping(_ number: UInt64) async throws(TransportError) {
        let now = network.clock.now
        let bell = try network.state.withLock { (state) throws(TransportError) -> Doorbell? in
            let link = state.links[index]
            if link.clientClosedAt != nil { throw .notConnected }
            if link.endedByServerAt != nil {
                state.record(.told(socket: id, code: nil), at: now)
                throw link.endingError ?? .notConnected
            }
            state.links[index].settleIdle(timeout: state.idleTimeout, now: now)
            let silent = state.isSilent(state.links[index])
            if !silent { state.touch(index, now: now) }
            state.record(.pinged(socket: id), at: now)
            state.links[index].pingsInFlight.append((number, now.advanced(by: state.latency * 2)))
            // The receive loop waits for the pong; a silent peer's thaw rings for it instead.
            return silent ? nil : link.doorbell
        }
        bell?.ring()
        network.ringWire()
    }

    /// A reader cancelled: nothing reads this connection any more.
    private func readerCancelled() -> TransportError {
        network.state.withLock { $0.links[index].receiverGone = true }
        return .cancelled
    }

    /// Closes at once, unless a late callback is armed on the connection
    /// (``SimulatedNetwork/armLateCallback(_:after:)``) and someone is left to take it: then
    /// the closing handshake lingers its `after`, the callback arrives, and the close
    /// returns once it was taken, or the reader went, or `closingTimeout` (one second) passed, or the
    /// task was cancelled.
    public func close(code: CloseCode, reason: String) async {
        let now = network.clock.now
        let (bell, linger) = network.state.withLock { state -> (Doorbell, Duration?) in
            if state.links[index].clientClosedAt == nil {
                state.links[index].clientClosedAt = now
                state.links[index].clientClose = CloseFrame(code: code, reason: reason)
                state.record(.closedByClient(socket: id), at: now)
            }
            state.held.removeAll { $0 == index }
            state.server.drop(index + 1)
            guard let late = state.links[index].late, late.kind != .open else {
                return (state.links[index].doorbell, nil)
            }
            guard late.canBeTaken(on: state.links[index]) else {
                state.links[index].late = nil
                return (state.links[index].doorbell, nil)
            }
            return (state.links[index].doorbell, late.after)
        }
        bell.ring()
        network.ringWire()
        guard let linger else { return }
        if linger > .zero {
            do {
                try await network.clock.sleep(for: linger)
            } catch {
                network.state.withLock { $0.links[index].late = nil }
                return
            }
            network.state.withLock { $0.links[index].late?.isDue = true }
            bell.ring()
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await network.clock.sleep(for: Self.closingTimeout) }
            group.addTask { await waitUntilLateCallbackGone(bell) }
            await group.next()
            group.cancelAll()
        }
        // Not taken in time: it never arrives.
        network.state.withLock { $0.links[index].late = nil }
    }

    /// How long a close waits for a due late callback to be read, as a client's closing
    /// handshake times out. The manager's shell reads it at once; only a client that stops
    /// reading before it closes waits this long.
    static let closingTimeout = Duration.seconds(1)

    /// Returns once the armed late callback was taken or can no longer be, or on cancellation.
    private func waitUntilLateCallbackGone(_ bell: Doorbell) async {
        while !Task.isCancelled {
            let epoch = bell.epoch
            let waiting = network.state.withLock { state in
                guard let late = state.links[index].late else { return false }
                return late.canBeTaken(on: state.links[index])
            }
            if !waiting { return }
            await bell.wait(after: epoch)
        }
    }

    /// A frame as the wire log spells it: its text, or its size for binary frames.
    static func wireText(_ message: Message) -> String {
        switch message {
        case .text(let text): text
        case .binary(let data): "binary \(data.count) bytes"
        }
    }
}
