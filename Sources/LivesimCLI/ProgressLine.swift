import Foundation

import typealias LiveConnection.Mutex

/// Progress of a long run, on standard error so it never mixes with results: on a terminal
/// one line rewritten in place (`\r`) a few times a second; otherwise (a pipe, a CI log) one
/// line every ``periodicInterval``; always a final line. Each line says how far, how fast, and
/// about how long is left. Wall time is read here only, never by anything simulated.
final class ProgressLine: Sendable {
    static let periodicInterval: Duration = .seconds(10)
    private static let terminalInterval: Duration = .milliseconds(200)

    private let verb: String
    private let unit: String
    private let total: Int?
    private let interactive: Bool
    private let started = ContinuousClock.now
    private let state = Mutex<(last: ContinuousClock.Instant, width: Int)>((ContinuousClock.now, 0))

    /// "explored 40/100 seeds": `verb` "explored", `unit` "seeds", `total` 100 (nil: unknown).
    init(_ verb: String, unit: String, total: Int?, interactive: Bool = isatty(STDERR_FILENO) == 1) {
        self.verb = verb
        self.unit = unit
        self.total = total
        self.interactive = interactive
    }

    /// Reports `done` units (from any thread); prints only when a line is due.
    func update(_ done: Int, _ detail: String = "") {
        let now = ContinuousClock.now
        let interval = interactive ? Self.terminalInterval : Self.periodicInterval
        let due = state.withLock { state in
            guard now - state.last >= interval else { return false }
            state.last = now
            return true
        }
        if due { emit(line(done, detail, at: now), final: false) }
    }

    /// The final line, whatever the interval.
    func finish(_ done: Int, _ detail: String = "") {
        emit(line(done, detail, at: .now), final: true)
    }

    /// "explored 40/100 seeds, 2 failing, 12.0 s, 3.3 seeds/s, about 18 s left".
    func line(_ done: Int, _ detail: String, at now: ContinuousClock.Instant) -> String {
        let elapsed = Double((now - started).nanoseconds) / 1e9
        var parts = ["\(verb) \(done)\(total.map { "/\($0)" } ?? "") \(unit)"]
        if !detail.isEmpty { parts.append(detail) }
        parts.append(String(format: "%.1f s", elapsed))
        if elapsed > 0, done > 0 {
            let rate = Double(done) / elapsed
            parts.append(String(format: rate >= 10 ? "%.0f" : "%.2f", rate) + " \(unit)/s")
            if let total, total > done { parts.append("about " + Self.estimate(Double(total - done) / rate) + " left") }
        }
        return parts.joined(separator: ", ")
    }

    static func estimate(_ seconds: Double) -> String {
        switch seconds {
        case ..<90: String(format: "%.0f s", seconds)
        case ..<5400: String(format: "%.0f min", seconds / 60)
        default: String(format: "%.1f h", seconds / 3600)
        }
    }

    private func emit(_ text: String, final: Bool) {
        let output: String
        if interactive {
            // Pad over a longer previous line; end the line only at the finish.
            let width = state.withLock { state in
                defer { state.width = text.count }
                return state.width
            }
            output = "\r" + text + String(repeating: " ", count: max(0, width - text.count)) + (final ? "\n" : "")
        } else {
            output = text + "\n"
        }
        FileHandle.standardError.write(Data(output.utf8))
    }
}
