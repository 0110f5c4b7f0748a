import Foundation
import LiveConnection
import LiveConnectionSimulator
import LiveConnectionWire
import Testing
import WireHistory

/// The wire history's format, read and written, and the wire judge reading one.
@Suite("Wire history")
struct WireHistoryTests {
    static let everyEvent: [WireHistoryEvent] = [
        .attempt(connection: 1, client: "phone \"1\"", path: "/live?client=phone%201"),
        .attemptFailed(connection: 1, reason: "handshake 503"),
        .opened(connection: 2),
        .clientMessage(connection: 2, binary: false, size: 35, text: #"{"type":"subscribe","topic":"feed"}"#),
        .clientMessage(connection: 2, binary: true, size: 9, text: nil),
        .clientPing(connection: 2), .pong(connection: 2),
        .serverMessage(connection: 2, binary: false, size: 40),
        .clientClose(connection: 2, code: 1000, reason: "bye\n"), .clientClose(connection: 3, code: nil, reason: ""),
        .clientEnd(connection: 4), .serverClose(connection: 5, code: 4003, reason: "forbidden"),
        .serverReset(connection: 6, reason: "reset by the server"), .idleDrop(connection: 7),
        .serverDone(connection: 7),
        .fault(.freeze), .fault(.thaw), .fault(.refuse(true)), .fault(.handshakeStatus(503)),
        .fault(.handshakeStatus(nil)), .fault(.hang(false)), .fault(.acceptThenClose(code: 1011, reason: "flap")),
        .fault(.acceptThenClose(code: nil, reason: "")), .fault(.closeAll(code: 4001, reason: "token expired")),
        .fault(.resetAll(handshakes: true)), .fault(.restart), .fault(.idleTimeout(.milliseconds(1500))),
        .fault(.idleTimeout(nil)), .fault(.latency(.microseconds(250))), .fault(.freeze, client: "phone-a"),
        .fault(.closeAll(code: 4003, reason: "forbidden"), client: "phone \"b\""),
        .fault(.slice(bytes: 3, pause: .milliseconds(1)), client: "c"), .fault(.slice(bytes: nil, pause: .zero)), .end,
    ]

    @Test("every event is written as one line and read back the same")
    func roundTrip() throws {
        for (index, event) in Self.everyEvent.enumerated() {
            let record = WireHistoryRecord(at: .microseconds(Int64(index) * 1_234_567), event: event)
            let line = record.line
            #expect(!line.contains("\n"), "\(line)")
            let read = try WireHistoryRecord(line: line)
            #expect(read == record, "\(line)")
        }
        let header = WireHistoryHeader(
            server: ["mode": "live", "url": "ws://127.0.0.1:9002"],
            faults: .init(seed: 42, profile: "swarm"), origin: "2026-12-06T02:00:00Z")
        #expect(try WireHistoryHeader(line: header.line) == header)
    }

    @Test(
        "a malformed line names the file, the line and why",
        arguments: [
            ("not json", "not JSON"),
            (#"{"t":1,"e":"open"}"#, #""conn" is missing"#),
            (#"{"t":1,"e":"open","conn":0}"#, "numbered from 1"),
            (#"{"t":1,"e":"teleport","conn":1}"#, #"unknown event "teleport""#),
            (#"{"e":"open","conn":1}"#, #"no "t""#),
            (#"{"t":-1,"e":"end"}"#, "not 0 to 1e9 seconds"),
            (#"{"t":0.5,"e":"end"}"#, "time goes backwards"),
            (#"{"t":2,"e":"server-close","conn":1,"code":99}"#, "not a close code"),
            (#"{"t":2,"e":"fault","fault":"handshake-status","status":101}"#, "not an HTTP refusal status"),
            (#"[1,2]"#, "not a JSON object"),
            (#"{"t":2,"e":"fault","fault":"refuse","on":true,"client":"a"}"#, "cannot be aimed at one client"),
            (#"{"t":2,"e":"fault","fault":"restart","client":"a"}"#, "cannot be aimed at one client"),
            (#"{"t":2,"e":"fault","fault":"freeze","client":""}"#, #""client" must be 1 to 128 bytes"#),
            (#"{"t":2,"e":"fault","fault":"freeze","client":7}"#, #""client""#),
            (#"{"t":2,"e":"fault","fault":"slice","bytes":0,"seconds":0.001}"#, "not a slice size"),
        ])
    func malformedLine(line: String, reason: String) throws {
        let path = try Self.write([WireHistoryHeader.example.line, #"{"t":1.0,"e":"open","conn":1}"#, "", line])
        var reader = try WireHistoryReader(path: path)
        #expect(try reader.next() != nil)
        #expect {
            while try reader.next() != nil {}
        } throws: { error in
            guard let error = error as? WireHistoryError else { return false }
            return error.file == path && error.line == 4 && error.reason.contains(reason)
                && "\(error)".hasPrefix("\(path):4: ")
        }
    }

    @Test("a file that is not a history says so at its first line")
    func notAHistory() throws {
        for (lines, reason) in [
            ([#"{"t":0,"e":"end"}"#], "not a wire history"),
            ([#"{"history":"livesim-wire","version":3,"origin":"x","server":{},"faults":null}"#], "version 3"),
            ([], "empty"),
        ] {
            let path = try Self.write(lines)
            #expect(throws: WireHistoryError.self) { try WireHistoryReader(path: path) }
            do {
                _ = try WireHistoryReader(path: path)
            } catch {
                #expect(error.reason.contains(reason), "\(error)")
            }
        }
    }

    @Test("a client that reconnects at once against accept-then-close breaks the attempt rate")
    func hotLoop() throws {
        var records: [WireHistoryRecord] = [.init(at: .zero, event: .fault(.acceptThenClose(code: 1011, reason: "")))]
        var at = Duration.milliseconds(1)
        for connection in 1...600 {
            records += [
                .init(at: at, event: .attempt(connection: connection, client: "hot", path: "/live")),
                .init(at: at + .microseconds(100), event: .opened(connection: connection)),
                .init(at: at + .microseconds(200), event: .serverClose(connection: connection, code: 1011, reason: "")),
                .init(at: at + .microseconds(900), event: .clientClose(connection: connection, code: 1011, reason: "")),
                .init(at: at + .microseconds(950), event: .serverDone(connection: connection)),
            ]
            at += .milliseconds(10)
        }
        records.append(.init(at: at, event: .end))
        let verdict = try HistoryJudgement(claims: WireClaimsFile.defaults).judge(path: Self.write(records))
        #expect(verdict.violations.map(\.rule).contains(.wireAttemptRate), "\(verdict.violations)")
        #expect(verdict.clients == ["hot"])
    }

    @Test("a client that reconnects after a terminal 4003 breaks quiet-after-stop; one that stays away does not")
    func terminalClose() throws {
        var records: [WireHistoryRecord] = [
            .init(at: .milliseconds(10), event: .attempt(connection: 1, client: "a", path: "/live?client=a")),
            .init(at: .milliseconds(11), event: .opened(connection: 1)),
            .init(at: .seconds(2), event: .fault(.closeAll(code: 4003, reason: "forbidden"))),
            .init(at: .seconds(2), event: .serverClose(connection: 1, code: 4003, reason: "forbidden")),
            .init(at: .milliseconds(2002), event: .clientClose(connection: 1, code: 4003, reason: "forbidden")),
            .init(at: .milliseconds(2003), event: .serverDone(connection: 1)),
        ]
        let quiet = try HistoryJudgement(claims: WireClaimsFile.defaults)
            .judge(path: Self.write(records + [.init(at: .seconds(60), event: .end)]))
        #expect(quiet.passed, "\(quiet.violations)")
        records.append(
            .init(at: .milliseconds(2500), event: .attempt(connection: 2, client: "a", path: "/live?client=a")))
        records.append(.init(at: .seconds(60), event: .end))
        let verdict = try HistoryJudgement(claims: WireClaimsFile.defaults).judge(path: Self.write(records))
        #expect(verdict.violations.map(\.rule) == [.wireQuietAfterStop], "\(verdict.violations)")
    }

    @Test("a socket held long after the server froze breaks the dead-peer bound the claims state")
    func frozenSocketHeld() throws {
        let records: [WireHistoryRecord] = [
            .init(at: .zero, event: .attempt(connection: 1, client: "slow", path: "/")),
            .init(at: .milliseconds(1), event: .opened(connection: 1)),
            .init(at: .seconds(1), event: .fault(.freeze)),
            .init(at: .seconds(20), event: .clientClose(connection: 1, code: 1001, reason: "")),
            // Full jitter after one failure: the retry comes within a second of giving up.
            .init(at: .milliseconds(20_400), event: .attempt(connection: 2, client: "slow", path: "/")),
            .init(at: .seconds(21), event: .fault(.thaw)),
            .init(at: .seconds(21), event: .serverDone(connection: 1)),
            .init(at: .milliseconds(21_001), event: .opened(connection: 2)),
            .init(at: .seconds(30), event: .end),
        ]
        var file = WireClaimsFile()
        file.claims.deadPeerBound = .seconds(5)
        let verdict = try HistoryJudgement(claims: file.claims).judge(path: Self.write(records))
        #expect(verdict.violations.map(\.rule) == [.wireDeadPeerGivenUp], "\(verdict.violations)")
        // Given up within the bound, the same freeze passes.
        file.claims.deadPeerBound = .seconds(25)
        #expect(try HistoryJudgement(claims: file.claims).judge(path: Self.write(records)).passed)
    }

    @Test("a claims file reads every key, and refuses what it does not know")
    func claimsFile() throws {
        let file = try WireClaimsFile(
            json: """
                {"backoff": {"policy": "exponential", "base": "500ms", "cap": 8}, "deadPeerBound": "1m",
                 "connectTimeout": "5s", "backoffResets": "when-open", "retryLimit": 7, "resumes": true,
                 "terminalCloseCodes": [4003], "terminalHandshakeStatuses": [], "refreshCloseCodes": [4001, 4002],
                 "refreshHandshakeStatuses": [401], "topics": ["feed"]}
                """)
        #expect(file.claims.backoff.maximum == .seconds(8))
        #expect(file.claims.deadPeerBound == .seconds(60))
        #expect(file.claims.connectTimeout == .seconds(5))
        #expect(file.claims.backoffResets == .whenOpen)
        #expect(file.claims.retryLimit == 7)
        #expect(file.claims.resumes)
        #expect(file.claims.terminalCloseCodes == [4003])
        #expect(file.claims.terminalHandshakeStatuses.isEmpty)
        #expect(file.claims.refreshCloseCodes == [4001, 4002])
        #expect(file.topics == ["feed"])
        let defaults = try WireClaimsFile(json: "{}")
        #expect(defaults.claims.terminalCloseCodes == [1008, 4003])
        #expect(defaults.claims.deadPeerBound == .seconds(35))
        for (text, reason) in [
            (#"{"deadPeerBoud": "1s"}"#, "unknown key \"deadPeerBoud\""),
            (#"{"backoff": {"policy": "fibonacci"}}"#, "unknown policy"),
            (#"{"backoff": {"policy": "full-jitter", "factor": 2}}"#, "takes no \"factor\""),
            (#"{"deadPeerBound": "soon"}"#, "\"deadPeerBound\" is a duration"),
            (#"{"terminalCloseCodes": [70000]}"#, "terminalCloseCodes"),
            (#"{"retryLimit": 0}"#, "retryLimit"),
            ("[]", "one JSON object"),
        ] {
            #expect(throws: ClaimsError.self, "\(text)") { try WireClaimsFile(json: text) }
            do {
                _ = try WireClaimsFile(json: text)
            } catch {
                #expect(error.reason.contains(reason), "\(text): \(error)")
            }
        }
    }

    // MARK: Helpers

    static func write(_ records: [WireHistoryRecord]) throws -> String {
        try write([WireHistoryHeader.example.line] + records.map(\.line))
    }

    static func write(_ lines: [String]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appending(path: "history-\(UUID().uuidString).jsonl").path
        try (lines.joined(separator: "\n") + (lines.isEmpty ? "" : "\n")).write(
            toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

extension WireHistoryHeader {
    static let example = WireHistoryHeader(server: ["mode": "live"], faults: nil, origin: "2026-12-06T00:00:00Z")
}
