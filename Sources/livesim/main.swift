import Foundation
import LivesimCLI

// `livesim`: the command line with the built-in clients only. A package of your own runs the
// same entry with its clients added (docs/cli.md, "Your own clients").
exit(await Livesim.main())
