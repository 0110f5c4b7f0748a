import Foundation
import LiveConnectionWire
import PackageFiles
import Testing
import WireHistory

/// The histories in Traces/real/, recorded from real clients on real sockets, judged offline:
/// the judge's reading of a real wire must not drift. Each file's verdict is stated here, with
/// the claims it was judged against (Traces/real/README.md says how each was recorded).
@Suite("Traces/real histories")
struct RealHistoryTests {
    /// File → (claims file in Traces/real, or nil for the defaults; the rules it breaks).
    static let verdicts: [String: (claims: String?, violated: Set<String>)] = [
        // Our manager (livesim connect, 0.3 s + 0.3 s heartbeat) through a freeze: it passes.
        "livesim-connect-freeze.jsonl": (nil, []),
        // Python websockets' `async for ws in connect(uri)` reconnects at once after a 4003.
        "python-websockets-4003.jsonl": (nil, ["wire-quiet-after-stop"]),
    ]

    static let directory = PackageFiles.url("Traces/real")

    static var files: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasSuffix(".jsonl") }.sorted()
    }

    @Test("every history in Traces/real has a stated verdict")
    func everyFileStated() {
        #expect(!Self.files.isEmpty, "no histories in \(Self.directory.path)")
        for file in Self.files {
            #expect(Self.verdicts[file] != nil, "Traces/real/\(file) has no verdict in RealHistoryTests")
        }
    }

    @Test("each history is judged offline to its stated verdict", arguments: Self.files)
    func verdict(file: String) throws {
        let stated = try #require(Self.verdicts[file])
        let claims: WireClaimsFile =
            if let name = stated.claims {
                try WireClaimsFile(json: String(contentsOf: Self.directory.appending(path: name), encoding: .utf8))
            } else {
                WireClaimsFile()
            }
        let verdict = try HistoryJudgement(claims: claims.claims, topics: claims.topics)
            .judge(path: Self.directory.appending(path: file).path)
        let violated = Set(verdict.violations.map(\.rule.name))
        #expect(
            violated == stated.violated,
            "Traces/real/\(file): \(verdict.violations.map(verdict.describe)); rerun: livesim judge Traces/real/\(file)"
        )
    }
}
