// The `livesim` command line with your own clients registered: `swift run my-livesim explore
// --client naive` explores NaiveClient from the wire, `swift run my-livesim replay TRACE`
// replays the shrunk traces it writes, and every other command is livesim's (docs/cli.md,
// "Your own clients"). Your client's name must differ from the built-in ones (exit 64).
import Foundation
import LivesimCLI
import MyClients

exit(await Livesim.main(clients: [NaiveClient.kind]))
