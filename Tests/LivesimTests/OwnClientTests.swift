import Foundation
import LiveConnectionWire
import TestScheduling
import Testing

@testable import LivesimCLI

/// A client of the user's own, registered through `Livesim.main(arguments:clients:name:)` as a
/// user's `my-livesim` registers it: every command that names clients knows it, its traces
/// replay, and a name that would shadow another client is refused before anything runs.
@Suite("livesim with a user's own clients", .computeBound)
struct OwnClientTests {
    static let mine = OneShotClient.kind

    /// The environment `my-livesim` runs with: the built-in clients, then the user's.
    static let environment = CommandEnvironment(
        clients: ClientCatalogue(Livesim.builtInClients + [mine]), program: "my-livesim")

    @Test("explore --client names the user's client, writes its shrunk trace with its claims, and replay runs it")
    func exploreAndReplay() async throws {
        let directory = try ScratchDirectory.fresh("own-client")
        let explored = await Livesim.main(
            arguments: [
                "explore", "--client", Self.mine.name, "--seeds", "0..4", "--duration", "10m", "--threads", "1",
                "--traces", directory.path,
            ],
            clients: [Self.mine], name: "my-livesim")
        // It never dials again after a drop: a wire rule breaks, and the exploration says so.
        #expect(explored == 1)
        let folder = directory.appendingPathComponent("clients")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        let traces = names.filter { $0.hasPrefix("\(Self.mine.name)-") && $0.hasSuffix(".trace") }
        try #require(!traces.isEmpty, "no trace of \(Self.mine.name) in \(names)")
        for name in traces {
            let path = folder.appendingPathComponent(name).path
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let header = text.split(separator: "\n").prefix { !$0.hasPrefix("observed") }
            #expect(header.contains("client: \(Self.mine.name)"), "\(name): \(header)")
            // The header carries this client's claims, not the manager's defaults.
            #expect(header.contains("claims: \(Self.mine.claims.traceDescription)"), "\(name): \(header)")
            #expect(text.contains("dead-peer=45000ms"), "\(name)")

            // The same entry replays it: the client's kind runs again and the expected
            // violation is reproduced (exit 0), where livesim alone refuses it (exit 1).
            let replayed = await Livesim.main(
                arguments: ["replay", path, "--quiet"], clients: [Self.mine], name: "my-livesim")
            #expect(replayed == 0, "replay \(name)")
            let refused = await Livesim.main(arguments: ["replay", path, "--quiet"], clients: [], name: "livesim")
            #expect(refused == 1, "livesim without the client replays \(name)")
        }
    }

    @Test("without the user's client, --client NAME is a usage error naming the clients there are")
    func unregisteredIsUnknown() {
        guard case .exit(let status, let text) = Livesim.resolve(["explore", "--client", "one-shot"], in: .livesim)
        else {
            Issue.record("explore --client one-shot ran without the client registered")
            return
        }
        #expect(status == 64)
        #expect(text.contains("one-shot") && text.contains("timers"), "\(text)")
    }

    @Test("every command that names clients accepts the user's, and help lists it with its summary")
    func commandsKnowIt() {
        for words in [
            ["explore", "--client", "one-shot"], ["client", "one-shot", "ws://127.0.0.1:9/"],
            ["judge", "--claims-of", "one-shot", "history.jsonl"],
            ["torture", "--seed", "1", "--duration", "1s", "--claims-of", "one-shot", "--", "true"],
        ] {
            if case .exit(let status, let text) = Livesim.resolve(words, in: Self.environment) {
                Issue.record("\(words) did not run: \(status) \(text)")
            }
        }
        guard case .exit(0, let help) = Livesim.resolve(["help", "explore"], in: Self.environment) else {
            Issue.record("help explore failed")
            return
        }
        #expect(help.contains("one-shot") && help.contains(Self.mine.summary))
        #expect(help.contains("timers"), "the built-in clients stay listed")
    }

    @Test(
        "a client named like a built-in one, twice, or unnamable exits 64 before any command runs",
        arguments: [
            ("timers", "clashes with a built-in client of the same name"), ("", "cannot be named ''"),
            ("-x", "cannot be named '-x'"),
        ])
    func refusedNames(name: String, message: String) async {
        var kind = Self.mine
        kind.name = name
        #expect(await Livesim.main(arguments: ["help"], clients: [kind]) == 64)
        #expect(await Livesim.main(arguments: ["explore", "--seeds", "1"], clients: [kind]) == 64)
        #expect(throws: ClientRegistrationError.self) {
            _ = try catalogueOf(builtIn: Livesim.builtInClients, yours: [kind])
        }
        do {
            _ = try catalogueOf(builtIn: Livesim.builtInClients, yours: [kind])
        } catch {
            #expect(error.description.contains(message), "\(error.description)")
        }
    }

    @Test("two of the user's clients with one name are refused, and the message says they are both theirs")
    func twoOfYours() throws {
        do {
            _ = try catalogueOf(builtIn: Livesim.builtInClients, yours: [Self.mine, Self.mine])
            Issue.record("two clients named one-shot were accepted")
        } catch {
            #expect(error == .clash("one-shot", builtIn: nil))
            #expect(error.description.contains("two of your clients are named 'one-shot'"))
        }
        let catalogue = try catalogueOf(builtIn: Livesim.builtInClients, yours: [Self.mine])
        #expect(catalogue.names == Livesim.builtInClients.map(\.name) + ["one-shot"])
    }
}
