import Foundation
import Synchronization

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
public final class WireHistoryWriter: Sendable {
    private struct State {
        var handle: FileHandle?
        var last: Duration = .zero
        var records = 0
        var failure: WireHistoryError?
    }

    public let path: String
    /// The instant `t` = 0 of the history.
    public let origin: ContinuousClock.Instant
    private let state: Mutex<State>
    private let onFailure: @Sendable (WireHistoryError) -> Void

    /// Creates (or truncates) the file and writes the header.
    /// - Parameters:
    ///   - path: the file to write.
    ///   - header: the history's first line (its origin should name `origin`'s wall-clock time).
    ///   - origin: the monotonic instant `t` = 0 stands for.
    ///   - onFailure: told once, when a write first fails (a server prints it and goes on).
    public init(
        path: String, header: WireHistoryHeader, origin: ContinuousClock.Instant = .now,
        onFailure: @escaping @Sendable (WireHistoryError) -> Void = { _ in }
    ) throws(WireHistoryError) {
        self.path = path
        self.origin = origin
        self.onFailure = onFailure
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

    /// Stamps `event` now (never before the previous record) and writes it.
    public func record(_ event: WireHistoryEvent) {
        let now = ContinuousClock.now
        let failure: WireHistoryError? = state.withLock { state in
            guard let handle = state.handle else { return nil }
            let at = max(state.last, now - origin)
            state.last = at
            let line = WireHistoryRecord(at: at, event: event).line + "\n"
            do {
                try handle.write(contentsOf: Data(line.utf8))
                state.records += 1
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
        if let failure { onFailure(failure) }
    }

    /// Records written so far (the header not counted).
    public var recordCount: Int { state.withLock { $0.records } }

    /// The first write error, if one stopped the history.
    public var failure: WireHistoryError? { state.withLock { $0.failure } }

    /// Flushes and closes the file; throws the first write error, if any. Later records are dropped.
    public func close() throws(WireHistoryError) {
        let (handle, failure) = state.withLock { state in
            defer { state.handle = nil }
            return (state.handle, state.failure)
        }
        if let failure { throw failure }
        do {
            try handle?.synchronize()
            try handle?.close()
        } catch {
            throw WireHistoryError(file: path, line: nil, reason: "cannot close: \(error.localizedDescription)")
        }
    }
}
