import LiveConnectionWire

@testable import LivesimCLI

extension CommandEnvironment {
    /// `livesim`'s own: the built-in clients, under its own name (what `swift run livesim` runs with).
    static let livesim = CommandEnvironment(clients: ClientCatalogue(Livesim.builtInClients), program: "livesim")
}
