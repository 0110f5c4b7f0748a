import Foundation
import TestScheduling
import Testing

@testable import LivesimCLI

/// `livesim proxy` as a user runs it: a clear error for an upstream that is not there, usage
/// errors, and a server's terminal close passed through to `livesim connect`.
@Suite("livesim proxy", .waitsOnPeers, .timeLimit(.minutes(2)))
struct ProxyCommandTests {
    @Test("an unreachable upstream is an error at start, with the URL and the reason, exit 1")
    func unreachableUpstream() throws {
        // Nothing listens on port 1 of loopback (binding it needs privileges).
        let output = try LivesimProcess.run(["proxy", "--upstream", "ws://127.0.0.1:1/live"], within: 20)
        #expect(!output.timedOut)
        #expect(output.status == 1)
        #expect(
            output.standardError.contains("cannot reach the upstream ws://127.0.0.1:1/live: error ECONNREFUSED"),
            "\(output.standardError)")
        #expect(!output.standardOutput.contains("listening"), "it listened before the upstream was known to be there")
    }

    @Test(
        "bad arguments exit 64 naming the option",
        arguments: [
            (["proxy"], "--upstream is required"),
            (["proxy", "--upstream", "http://127.0.0.1:8080/"], "invalid URL"),
            (["proxy", "--upstream", "ws://127.0.0.1:8080/", "--listen", "70000"], "--listen must be"),
            (
                ["proxy", "--upstream", "ws://127.0.0.1:8080/", "--tls-cert", "a.pem"],
                "--tls-cert and --tls-key go together"
            ),
            (["proxy", "--upstream", "ws://127.0.0.1:8080/", "--admin-token", "has space"], "--admin-token must be"),
        ])
    func usageErrors(words: [String], message: String) {
        let text = CommandLineTests.usageError(words)
        #expect(text?.contains(message) == true, "\(text ?? "accepted")")
    }

    @Test("a client through the proxy meets the server's terminal close: connect stops for good, exit 1")
    func terminalCloseThrough() throws {
        let peer = try WebSocketPeer("terminal")
        let proxy = try LivesimProcess(["proxy", "--upstream", peer.url, "--duration", "30s"])
        defer { proxy.process.terminate() }
        #expect(proxy.waitForOutput(containing: "admin on", seconds: 15), "\(proxy.standardOutputSoFar)")
        let line = try #require(
            proxy.standardOutputSoFar.split(separator: "\n").first { $0.hasPrefix("listening on ") })
        let url = line.dropFirst("listening on ".count) + "/?client=cli"
        let output = try LivesimProcess.run(["connect", String(url)], within: 20)
        #expect(!output.timedOut)
        #expect(output.status == 1)
        #expect(output.standardError.contains("the manager stopped for good"), "\(output.standardError)")
        #expect(output.standardOutput.contains("1008"), "\(output.standardOutput)")
    }
}
