import Foundation
import LiveConnectionSimulator
import Testing

/// `livesim explore` as a user runs it: the summary, the exit status, bad arguments.
@Suite("livesim explore", .timeLimit(.minutes(5)))
struct LivesimExploreCommandTests {

    @Test("a clean exploration prints the summary table and exits 0")
    func clean() throws {
        let output = try LivesimTraceCommandTests.livesim(["explore", "--seeds", "3..<5", "--duration", "2m", "--threads", "2"])
        #expect(output.status == 0, "\(output.standardOutput)\(output.standardError)")
        let text = output.standardOutput
        #expect(text.contains("livesim explore: 2 seeds (3..<5) × 2m, strategy per seed, variant correct, 2 threads"))
        #expect(text.range(of: #"\nruns +2\n"#, options: .regularExpression) != nil, "\(text)")
        #expect(text.contains("faults injected, by kind"))
        for invariant in Invariant.all {
            #expect(text.range(of: "\n  \(invariant.name) +0\n", options: .regularExpression) != nil, "\(invariant.name)")
        }
        #expect(output.standardError.contains("explored 2/2 seeds, 0 failing"))
    }

    @Test("--check-determinism runs every seed twice and reports how many differed")
    func checkDeterminism() throws {
        let output = try LivesimTraceCommandTests.livesim([
            "explore", "--seeds", "3..<5", "--duration", "2m", "--threads", "2", "--check-determinism",
        ])
        #expect(output.status == 0, "\(output.standardOutput)\(output.standardError)")
        #expect(output.standardOutput.contains("each seed twice (determinism)"))
        #expect(output.standardOutput.range(of: #"\n  two runs differed +0\n"#, options: .regularExpression) != nil)
    }

    @Test("malformed options exit 64 with the usage", arguments: [
        ["--seeds", "ten"], ["--seeds", "5..<2"], ["--duration", "1 hour"], ["--strategy", "lifo"],
        ["--variant", "nope"], ["--threads", "0"], ["--bogus"],
    ])
    func malformed(arguments: [String]) throws {
        let output = try LivesimTraceCommandTests.livesim(["explore"] + arguments)
        #expect(output.status == 64, "\(arguments): \(output.standardError)")
        #expect(output.standardError.contains("usage: livesim explore"))
    }
}
