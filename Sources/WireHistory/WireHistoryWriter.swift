import Foundation

import typealias LiveConnection.Mutex

/// Streams a wire history to a file as it happens: the header at once, then each record as
/// it is stamped, so memory stays flat however long the server runs.
///
/// ```swift
/// let writer = try WireHistoryWriter(path: "run.jsonl", header: header)
/// writer.record(.opened(connection: 1))      // stamped now, written now
/// writer.record(.end)
/// try writer.close()                         // the first write error, if any
/// ```
///
/// Records are stamped under the writer's lock, so the file's times never go backwards even
/// when many connections record at once. A write that fails (disk full, a closed pipe)
/// stops the history: the error is kept, ``onFailure`` hears it once, later records are
/// dropped, and ``close()`` throws it; the server itself goes on.
///
/// With a `queueLimit`, ``record(_:)`` never touches the file: it stamps the record and
/// queues its line, and ``drain()`` (a child task of whoever runs the server) writes what is
/// queued. A connection's task then never waits for the disk. A record that finds the queue
/// full is dropped and counted (``droppedRecords``), and ``close()`` throws, naming the
/// count: a history with a hole must not be judged as if it were whole.
public final class WireHistoryWriter: Sendable {
    private struct State {
        var handle: FileHandle?
        var last: Duration = .zero
        var records = 0
        var failure: WireHistoryError?
        /// Lines stamped and not yet written (with a queue limit only).
        var pending: [String] = []
        var dropped = 0
    }

    public let path: String
    /// The instant `t` = 0 of the history.
    public let origin: ContinuousClock.Instant
    /// At most this many records wait for ``drain()``; nil: each is written as it is recorded.
    public let queueLimit: Int?
    private let state: Mutex<State>
    /// Held while lines go to the file, so that two flushes cannot interleave theirs.
    private let output = Mutex(())
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    private let onFailure: @Sendable (WireHistoryError) -> Void

    /// Creates (or truncates) the file and writes the header.
    /// - Parameters:
    ///   - path: the file to write.
    ///   - header: the history's first line (its origin should name `origin`'s wall-clock time).
    ///   - origin: the monotonic instant `t` = 0 stands for.
    ///   - queueLimit: queue up to this many records for ``drain()`` instead of writing each
    ///     on the recording task (nil: write each at once).
    ///   - onFailure: told once, when a write first fails (a server prints it and goes on).
    public init(
        path: String, header: WireHistoryHeader, origin: ContinuousClock.Instant = .now, queueLimit: Int? = nil,
        onFailure: @escaping @Sendable (WireHistoryError) -> Void = { _ in }
    ) throws(WireHistoryError) {
        if let queueLimit { precondition(queueLimit > 0, "a history's queue holds at least one record") }
        self.path = path
        self.origin = origin
        self.queueLimit = queueLimit
        self.onFailure = onFailure
        // One wake-up is enough: a drain takes everything queued.
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        // Opened in place (truncated), never replaced by a rename: a path that is a device, a
        // pipe or a symbolic link is written through, as any program's output file is.
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw WireHistoryError(
                file: path, line: nil, reason: "cannot create the file: \(String(cString: strerror(errno)))")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        state = Mutex(State(handle: handle))
        do {
            try handle.write(contentsOf: Data((header.line + "\n").utf8))
        } catch {
            try? handle.close()
            throw WireHistoryError(file: path, line: 1, reason: "cannot write: \(error.localizedDescription)")
        }
    }

    /// Stamps `event` now (never before the previous record) and writes it, or queues it.
    public func record(_ event: WireHistoryEvent) {
        let now = ContinuousClock.now
        enum Outcome {
            case written
            case queued(first: Bool)
            case failed(WireHistoryError)
        }
        let outcome: Outcome = state.withLock { state in
            guard let handle = state.handle else { return .written }
            let at = max(state.last, now - origin)
            state.last = at
            let line = WireHistoryRecord(at: at, event: event).line + "\n"
            if let queueLimit {
                guard state.pending.count < queueLimit else {
                    state.dropped += 1
                    return .written
                }
                state.pending.append(line)
                return .queued(first: state.pending.count == 1)
            }
            if let failure = Self.write([line], to: handle, in: &state, path: path) { return .failed(failure) }
            return .written
        }
        switch outcome {
        case .written, .queued(first: false): break
        case .queued(first: true): wake.yield()
        case .failed(let failure): onFailure(failure)
        }
    }

    /// Writes what is queued whenever something is, until cancelled (or ``close()``); then
    /// writes what is left. Run it as a child task beside the server (with a queue limit).
    public func drain() async {
        for await _ in wakeups { flush() }
        flush()
    }

    /// Writes every queued line now, in order.
    private func flush() {
        let failure: WireHistoryError? = output.withLock { _ in
            let (lines, handle) = state.withLock { state in
                defer { state.pending = [] }
                return (state.pending, state.handle)
            }
            guard let handle, !lines.isEmpty else { return nil }
            // The file is written outside the state's lock: recording goes on meanwhile.
            var written = State(handle: handle)
            written.records = state.withLock { $0.records }
            let failure = Self.write(lines, to: handle, in: &written, path: path)
            state.withLock { state in
                state.records = written.records
                if let failure {
                    state.failure = failure
                    state.handle = nil
                }
            }
            return failure
        }
        if let failure { onFailure(failure) }
    }

    /// Writes lines; on failure the history stops (the handle is closed) and the error names
    /// the first line not written.
    private static func write(_ lines: [String], to handle: FileHandle, in state: inout State, path: String)
        -> WireHistoryError?
    {
        do {
            try handle.write(contentsOf: Data(lines.joined().utf8))
            state.records += lines.count
            return nil
        } catch {
            let failure = WireHistoryError(
                file: path, line: state.records + 2, reason: "cannot write: \(error.localizedDescription)")
            state.failure = failure
            state.handle = nil
            try? handle.close()
            return failure
        }
    }

    /// Records written so far (the header not counted).
    public var recordCount: Int { state.withLock { $0.records } }

    /// Records dropped because the queue was full (with a queue limit).
    public var droppedRecords: Int { state.withLock { $0.dropped } }

    /// The first write error, if one stopped the history.
    public var failure: WireHistoryError? { state.withLock { $0.failure } }

    /// Writes what is queued, flushes and closes the file; throws the first write error, or
    /// the count of records dropped from a full queue. Later records are dropped.
    public func close() throws(WireHistoryError) {
        flush()
        wake.finish()
        let (handle, failure, dropped) = state.withLock { state in
            defer { state.handle = nil }
            return (state.handle, state.failure, state.dropped)
        }
        if let failure { throw failure }
        do {
            try handle?.synchronize()
            try handle?.close()
        } catch {
            throw WireHistoryError(file: path, line: nil, reason: "cannot close: \(error.localizedDescription)")
        }
        if dropped > 0, let queueLimit {
            throw WireHistoryError(
                file: path, line: nil,
                reason:
                    "\(dropped) records were dropped: the file did not keep up with the server (a queue of \(queueLimit) records was full); the history has holes and must not be judged"
            )
        }
    }
}
