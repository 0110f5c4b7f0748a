import Foundation
import PackageFiles
import Testing

@testable import LiveConnection

/// The transition table in docs/architecture.md is a claim about the code: every row is
/// replayed here against the machine, so the table cannot drift from the switch statements.
@Suite("The documented transition table")
struct TransitionTableTests {
    /// One row of the table: the states it starts from, its input, the state it names next.
    struct Row: CustomStringConvertible {
        var line: Int
        var from: String
        var input: String
        var next: String
        var description: String { "architecture.md:\(line) | \(from) | \(input) | \(next)" }
    }

    static let stateNames = [
        "idle", "connecting", "subscribing", "open", "waiting", "refreshing", "backgrounded", "offline", "stopped",
    ]

    static func rows() throws -> [Row] {
        let lines = try PackageFiles.text("docs/architecture.md").split(
            separator: "\n", omittingEmptySubsequences: false)
        guard let header = lines.firstIndex(of: "| state | input | next state | effects |") else { return [] }
        var rows: [Row] = []
        for index in (header + 2)..<lines.count {
            let cells = lines[index].split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard lines[index].hasPrefix("|"), cells.count == 4 else { break }
            rows.append(Row(line: index + 1, from: cells[0], input: cells[1], next: cells[2]))
        }
        return rows
    }

    /// The states a cell names, in order: `open(g, true)` is open awaiting a pong.
    static func states(in cell: String) -> [(name: String, awaitingPong: Bool?)] {
        let pattern = /(idle|connecting|subscribing|open|waiting|refreshing|backgrounded|offline|stopped)(\(([^)]*)\))?/
        return cell.matches(of: pattern).map { match in
            let arguments = match.output.3.map(String.init) ?? ""
            let awaiting: Bool? = arguments.contains("true") ? true : arguments.contains("false") ? false : nil
            return (String(match.output.1), awaiting)
        }
    }

    /// A machine in the named state, reached by inputs only (generation 1 is live where one is).
    static func machine(
        in name: String, awaitingPong: Bool, configuration: ConnectionConfiguration = ConnectionConfiguration()
    ) throws -> MachineDriver {
        var driver = MachineDriver(configuration)
        switch name {
        case "idle": break
        case "connecting": driver.handle(.connect(.primary))
        case "subscribing": driver.handle(.connect(.primary)); driver.handle(.opened(1))
        case "open":
            _ = try driver.connectAndOpen()
            if awaitingPong { driver.handle(.timerFired(.heartbeat(1))) }
        case "waiting": driver.handle(.connect(.primary)); driver.handle(.failed(1, .reset(errno: "ECONNRESET")))
        case "refreshing":
            driver.handle(.connect(.primary))
            driver.handle(.closedByPeer(1, code: .tokenExpired, reason: "expired"))
        case "backgrounded": driver.handle(.connect(.primary)); driver.handle(.setForeground(false))
        case "offline": driver.handle(.connect(.primary)); driver.handle(.setPathViable(false))
        case "stopped": driver.handle(.connect(.primary)); driver.handle(.disconnect())
        default: Issue.record("no way to reach \(name)")
        }
        return driver
    }

    /// The inputs a row's input cell means, for a machine whose live generation is `g`
    /// (a command is put in flight first where the row needs one).
    static func inputs(for cell: String, live g: Generation) -> [Input]? {
        guard let start = cell.firstIndex(of: "`") else { return nil }
        let rest = cell[cell.index(after: start)...]
        guard let end = rest.firstIndex(of: "`") else { return nil }
        let input = String(rest[..<end])
        switch input {
        case "connect(e)", "connect(same e)": return [.connect(.primary)]
        case "connect(new e)": return [.connect(.secondary)]
        case "disconnect": return [.disconnect()]
        case "setForeground(false)": return [.setForeground(false)]
        case "setForeground(true)": return [.setForeground(true)]
        case "setPathViable(false)": return [.setPathViable(false)]
        case "setPathViable(true)": return [.setPathViable(true)]
        case "subscribe(t)": return [.subscribe("fresh")]
        case "send(id)": return [.send(CommandID(7))]
        case "ping(id, T)": return [.ping(PingID(5), timeout: .seconds(2))]
        case "pingAnswered(g, id)": return [.ping(PingID(5), timeout: .seconds(2)), .pingAnswered(g, PingID(5))]
        case "timerFired(pingDeadline(id))":
            return [.ping(PingID(5), timeout: .seconds(2)), .timerFired(.pingDeadline(PingID(5)))]
        case "opened(g)": return [.opened(g)]
        case "flushed(g)": return [.flushed(g)]
        case "connectFailed(g, handshake 403)": return [.connectFailed(g, .handshakeRejected(status: 403))]
        case "connectFailed(g, handshake 401)": return [.connectFailed(g, .handshakeRejected(status: 401))]
        case "connectFailed(g, other)": return [.connectFailed(g, .refused)]
        case "connectFailed(g, invalidURL)": return [.connectFailed(g, .invalidURL("bad port 99999"))]
        case "timerFired(connectTimeout(g))": return [.timerFired(.connectTimeout(g))]
        case "timerFired(retry)": return [.timerFired(.retry)]
        case "timerFired(heartbeat(g))": return [.timerFired(.heartbeat(g))]
        case "timerFired(pongDeadline(g))": return [.timerFired(.pongDeadline(g))]
        case "pong(g)": return [.pong(g)]
        case "received(g, seq)": return [.received(g, .payload, sequence: 1)]
        case "closedByPeer(g, terminal code)": return [.closedByPeer(g, code: CloseCode(rawValue: 4003), reason: "")]
        case "closedByPeer(g, 4001)": return [.closedByPeer(g, code: .tokenExpired, reason: "")]
        case "closedByPeer(g, other)": return [.closedByPeer(g, code: .internalError, reason: "")]
        case "failed(g, error)": return [.failed(g, .reset(errno: "ECONNRESET"))]
        case "sendCompleted(g, id)": return [.send(CommandID(7)), .sendCompleted(g, CommandID(7))]
        case "credentialsRefreshed(true)", "credentialsRefreshed(_)": return [.credentialsRefreshed(succeeded: true)]
        case "credentialsRefreshed(false)": return [.credentialsRefreshed(succeeded: false)]
        default: return nil
        }
    }

    static func name(of state: ConnectionMachine.State) -> (name: String, awaitingPong: Bool?) {
        switch state {
        case .idle: ("idle", nil)
        case .connecting: ("connecting", nil)
        case .subscribing: ("subscribing", nil)
        case .open(_, let connection): ("open", connection.awaitingPong)
        case .waiting: ("waiting", nil)
        case .refreshing: ("refreshing", nil)
        case .backgrounded: ("backgrounded", nil)
        case .offline: ("offline", nil)
        case .stopped: ("stopped", nil)
        }
    }

    @Test("the table has a row for every state, and names only states the machine has")
    func everyStateHasRows() throws {
        let rows = try Self.rows()
        #expect(rows.count > 30, "the table was not found or is cut short")
        let named = Set(rows.flatMap { Self.states(in: $0.from).map(\.name) })
        #expect(named == Set(Self.stateNames), "states with no row: \(Set(Self.stateNames).subtracting(named))")
    }

    @Test("every row whose states are named leads, in the machine, to the state it names")
    func rowsMatchTheMachine() throws {
        var checked = 0
        for row in try Self.rows() where !row.from.hasPrefix("any") {
            let background = row.from.contains("in the background")
            let pathless = row.from.contains("without a path")
            // A row for a non-default timing says so in its input cell.
            var configuration = ConnectionConfiguration()
            if row.input.contains("credentials before every connect") {
                configuration.credentialsTiming = .beforeEveryConnect
            }
            for start in Self.states(in: row.from) {
                var driver = try Self.machine(
                    in: start.name, awaitingPong: start.awaitingPong ?? false, configuration: configuration)
                if background { driver.handle(.setForeground(false)) }
                if pathless { driver.handle(.setPathViable(false)) }
                let g = driver.machine.generation
                let inputs = try #require(Self.inputs(for: row.input, live: g), "\(row): input not understood")
                for input in inputs { driver.handle(input) }
                let reached = Self.name(of: driver.state)
                let expected = row.next.hasPrefix("unchanged") ? start : try #require(Self.states(in: row.next).first)
                #expect(reached.name == expected.name, "\(row): from \(start.name) reached \(driver.state)")
                if let awaiting = expected.awaitingPong {
                    #expect(reached.awaitingPong == awaiting, "\(row): reached \(driver.state)")
                }
                checked += 1
            }
        }
        #expect(checked > 40)
    }
}
