// Executing the machine's effects: the shell's whole job, one case at a time.
extension ConnectionManager {
    /// Executes one effect of `input`'s verdict; `message` is the frame a `received` input carried.
    func execute(_ effect: Effect, input: Input, message: Message?) {
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
            // A fresh serial disarms whatever was armed under this ID. The old sleep is not
            // woken: it fires at its deadline and is dropped by the serial check. That costs
            // one late wake-up, and saves the race-against-a-signal group per timer (a
            // quarter of the simulator's CPU time, measured).
            timerSerial += 1
            let serial = timerSerial
            timers[timer] = serial
            let clock = self.clock
            spawn {
                do { try await clock.sleep(for: delay) } catch { return }
                await self.timerFired(timer, serial: serial)
            }

        case .cancelTimer(let timer):
            timers.removeValue(forKey: timer)

        case .refreshCredentials:
            let provider = credentials
            spawn {
                guard let provider else { return await self.credentialsRefreshed(nil) }
                let headers = try? await provider()
                await self.credentialsRefreshed(headers)
            }

        case .completeCommand(let id, let outcome):
            commands.removeValue(forKey: id)?.continuation.resume(returning: outcome)

        case .deliverMessage:
            guard let message, case .received(_, let sequence) = input else {
                preconditionFailure("deliver in the verdict of \(input), which carries no message")
            }
            broadcaster.broadcast(.message(message, sequence: sequence))

        case .reportGap(let expected, let received):
            broadcaster.broadcast(.gap(expected: expected, received: received))

        case .report(let phase):
            broadcaster.broadcast(.phase(phase))
        }
    }

    /// Hands a job to ``run()``'s task group.
    func spawn(_ job: @escaping Job) { work.yield(job) }

    // MARK: Callbacks from jobs (each re-enters through the machine)

    func timerFired(_ timer: TimerID, serial: UInt64) {
        // A fire that lost the race with a cancel or restart is not the armed timer.
        guard timers[timer] == serial else { return }
        timers.removeValue(forKey: timer)
        process(.timerFired(timer))
    }

    func credentialsRefreshed(_ headers: [Endpoint.Header]?) {
        if let headers { refreshedHeaders = headers }
        process(.credentialsRefreshed(succeeded: headers != nil || credentials == nil))
    }

    func received(_ g: Generation, _ message: Message) {
        process(.received(g, sequence: wire.sequence(message)), carrying: message)
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
