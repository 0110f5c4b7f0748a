import LiveConnectionWire

/// What a command line runs with besides its words: the client kinds this build knows (what
/// `--client`, `--claims-of` and a trace's `client:` line can name) and the name the program
/// was started as (for the replay lines it prints). ``Livesim/main(arguments:clients:name:)``
/// makes one per run and hands it to the command; nothing reads it from a global, so
/// `livesim` and a user's own `my-livesim` differ only in what they pass.
///
/// ```swift
/// let environment = CommandEnvironment(
///     clients: try catalogueOf(builtIn: Livesim.builtInClients, yours: [mine]), program: "my-livesim")
/// let status = await Livesim.run(["explore", "--client", "mine"], in: environment)
/// ```
struct CommandEnvironment: Sendable {
    var clients: ClientCatalogue
    /// `livesim`, or the user's executable's name.
    var program: String

    /// The `--client` lines of `help explore` and `help client`: one a client, name and summary.
    var clientHelp: String {
        clients.kinds.map { kind in
            "               \(kind.name.padding(toLength: 14, withPad: " ", startingAt: 0))\(kind.summary)"
        }.joined(separator: "\n")
    }
}

/// The catalogue of the built-in clients followed by the user's, refused when a name could
/// not pick one client from the command line: used twice (a built-in's name would silently
/// shadow the user's client, or the other way round), empty, or starting with `-` (read as
/// an option after `--client`).
func catalogueOf(builtIn: [ClientKind], yours: [ClientKind]) throws(ClientRegistrationError) -> ClientCatalogue {
    var seen = Set<String>()
    for kind in builtIn + yours {
        guard !kind.name.isEmpty, !kind.name.hasPrefix("-") else { throw .unusableName(kind.name) }
        guard seen.insert(kind.name).inserted else {
            let builtInNames = builtIn.map(\.name)
            throw .clash(kind.name, builtIn: builtInNames.contains(kind.name) ? builtInNames : nil)
        }
    }
    return ClientCatalogue(builtIn + yours)
}

/// A client kind passed to ``Livesim/main(arguments:clients:name:)`` that the command line
/// could not name unambiguously (exit 64 before any command runs).
enum ClientRegistrationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Two clients share `name`; `builtIn` lists the built-in names when one of them is it.
    case clash(String, builtIn: [String]?)
    case unusableName(String)

    var description: String {
        switch self {
        case .clash(let name, let builtIn?):
            "the client '\(clipped(name))' clashes with a built-in client of the same name "
                + "(built-in: \(builtIn.joined(separator: ", "))): give yours another name"
        case .clash(let name, nil):
            "two of your clients are named '\(clipped(name))': give each its own name"
        case .unusableName(let name):
            "a client cannot be named '\(clipped(name))': --client needs a name that is not empty and does not start with -"
        }
    }
}
