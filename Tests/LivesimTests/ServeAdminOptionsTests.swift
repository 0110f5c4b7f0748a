import Foundation
import TestScheduling
import Testing

@testable import LivesimCLI

/// `livesim serve`'s admin options as a user meets them: the warning when the endpoint is
/// reachable from other machines, and a token that is checked without being repeated.
@Suite("livesim serve's admin endpoint options", .waitsOnPeers, .timeLimit(.minutes(2)))
struct ServeAdminOptionsTests {
    @Test("an admin endpoint beyond loopback warns on standard error, and recommends a token until given one")
    func warnsBeyondLoopback() throws {
        let open = try LivesimProcess.run(["serve", "--admin-host", "0.0.0.0", "--duration", "1s"])
        #expect(open.status == 0, "\(open)")
        #expect(
            open.standardError.contains("warning: the admin endpoint on 0.0.0.0 can be reached from other machines")
                && open.standardError.contains("give --admin-token"), "\(open.standardError)")
        let guarded = try LivesimProcess.run(
            ["serve", "--admin-host", "0.0.0.0", "--admin-token", "s3cret", "--duration", "1s"])
        #expect(guarded.status == 0, "\(guarded)")
        #expect(
            guarded.standardError.contains("warning:") && !guarded.standardError.contains("give --admin-token")
                && !guarded.standardError.contains("s3cret"), "\(guarded.standardError)")
        let loopback = try LivesimProcess.run(["serve", "--duration", "1s"])
        #expect(loopback.status == 0 && !loopback.standardError.contains("warning"), "\(loopback)")
    }

    @Test("a refused token is described by its rule, never repeated (it is a secret)")
    func tokenNotEchoed() {
        let text = CommandLineTests.usageError(["serve", "--admin-token", "almost secret"])
        #expect(text?.contains("--admin-token must be printable ASCII") == true, "\(text ?? "accepted")")
        #expect(text?.contains("almost") == false)
    }
}
