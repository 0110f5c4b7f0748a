// Executing the machine's effects: the shell's whole job, one case at a time.
extension ConnectionManager {
    /// Executes one effect of the machine's verdict.
    func execute(_ effect: Effect) {
        switch effect {
        case .openConnection(let g, let endpoint):
            let handle = GenerationHandle()
            generations[g] = handle
            guard fetchesCredentialsBeforeConnect, let provider = credentials else {
                let target = endpointWithCredentials(endpoint)
                spawn { await handle.signal.cancelling { await self.runGeneration(g, target, handle) } }
                return
            }
            // Credentials first, as part of the attempt: the connect timeout (which abandons
            // the job) covers the provider too, and its failure is the attempt's.
            spawn {
                await handle.signal.cancelling {
                    guard let target = await self.fetchCredentials(for: g, endpoint, from: provider) else { return }
                    await self.runGeneration(g, target, handle)
                }
            }

        case .closeConnection(let g, let code, let reason):
            generations.removeValue(forKey: g)?.close(code: code, reason: reason)
            handshakes.removeValue(forKey: g)

        case .send(let g, let outbound):
            guard let handle = generations[g] else { return }
            switch outbound {
            case .control(let control): handle.post(.send(wire.encode(control), command: nil))
            case .command(let id):
                guard let pending = commands[id] else { preconditionFailure("sending unknown command \(id)") }
                handle.post(.send(pending.message, command: id))
            }

        case .flush(let g):
            generations[g]?.post(.flush)

        case .ping(let g):
            generations[g]?.post(.ping)

        case .sendPing(let g, let id):
            generations[g]?.post(.appPing(id))

        case .completePing(let id, let outcome):
            pings.removeValue(forKey: id)?.resume(returning: outcome)

        case .startTimer(let timer, let delay):
            // One job sleeps until the earliest deadline (see TimerSchedule); a new one
            // starts only when this deadline is earlier than the one it wakes at.
            let deadline = clock.now() + delay
            if let sleeper = timers.withLock({ $0.arm(timer, at: deadline) }) {
                spawn { await self.sleepForTimers(sleeper) }
            }

        case .cancelTimer(let timer):
            timers.withLock { $0.disarm(timer) }

        case .refreshCredentials:
            let provider = credentials
            spawn {
                guard let provider else { return await self.credentialsRefreshed(nil) }
                let headers = try? await provider()
                await self.credentialsRefreshed(headers)
            }

        case .completeCommand(let id, let outcome):
            commands.removeValue(forKey: id)?.continuation.resume(returning: outcome)

        case .deliverMessage(let message, let sequence):
            broadcaster.broadcast(.message(message, sequence: sequence))

        case .reportGap(let expected, let received):
            broadcaster.broadcast(.gap(expected: expected, received: received))

        case .report(let phase):
            broadcaster.broadcast(.phase(phase))
        }
    }

    /// Hands a job to ``run()``'s task group.
    func spawn(_ job: @escaping Job) { jobs.post(job) }

    // MARK: Callbacks from jobs (each re-enters through the machine)

    /// The timers' job: sleeps until a deadline, fires what is due, and sleeps again until
    /// the next; ends when nothing is armed or a newer job took over.
    nonisolated func sleepForTimers(_ sleeper: TimerSchedule.Sleeper) async {
        var deadline = sleeper.deadline
        while true {
            do { try await clock.sleep(until: deadline) } catch { return }
            let now = clock.now()
            switch timers.withLock({ $0.wake(sleeper.serial, now: now) }) {
            case .end: return
            case .sleep(let next): deadline = next
            case .fire:
                guard let next = await fireDueTimers(sleeper.serial) else { return }
                deadline = next
            }
        }
    }

    /// Fires every timer due now (earliest first), then says when the job `serial` sleeps
    /// next; nil ends it.
    func fireDueTimers(_ serial: UInt64) -> Duration? {
        guard timers.withLock({ $0.isCurrent(serial) }) else { return nil }
        let now = clock.now()
        let limit = timers.withLock { $0.lastSerial }
        // One at a time, the lock released: firing one arms and disarms others.
        while let timer = timers.withLock({ $0.takeDue(now: now, armedUpTo: limit) }) {
            process(.timerFired(timer))
        }
        // Firing arms deadlines at or after now only, so no newer job took over.
        return timers.withLock { $0.nextWake() }
    }

    func credentialsRefreshed(_ headers: [Endpoint.Header]?) {
        if let headers { refreshedHeaders = headers }
        process(.credentialsRefreshed(succeeded: headers != nil || credentials == nil))
    }

    func received(_ g: Generation, _ message: Message) {
        process(.received(g, message, sequence: wire.sequence(message)))
    }

    /// Asks the provider for generation `g`'s credentials; the endpoint with them laid over its
    /// headers, or nil after reporting the failure (nothing is reported for an abandoned attempt).
    nonisolated func fetchCredentials(
        for g: Generation, _ endpoint: Endpoint, from provider: CredentialsProvider
    ) async -> Endpoint? {
        do {
            let headers = try await provider()
            return await adoptCredentials(headers, for: endpoint)
        } catch {
            if Task.isCancelled { return nil }
            await process(.connectFailed(g, .credentialsUnavailable(String(describing: error))))
            return nil
        }
    }

    /// Keeps fresh headers for later attempts too, and lays them over `endpoint`'s.
    func adoptCredentials(_ headers: [Endpoint.Header], for endpoint: Endpoint) -> Endpoint {
        refreshedHeaders = headers
        return endpointWithCredentials(endpoint)
    }

    /// The endpoint with refreshed credentials laid over its own headers.
    func endpointWithCredentials(_ endpoint: Endpoint) -> Endpoint {
        guard !refreshedHeaders.isEmpty else { return endpoint }
        var result = endpoint
        let replaced = Set(refreshedHeaders.map { $0.name.lowercased() })
        result.headers = endpoint.headers.filter { !replaced.contains($0.name.lowercased()) } + refreshedHeaders
        return result
    }
}
