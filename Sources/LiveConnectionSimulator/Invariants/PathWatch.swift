import LiveConnection

/// The judge of `quiet-without-path` and `reconnects-when-path-returns`: what the manager
/// may do while the app says the network path is gone, and must do when it says it is back.
///
/// ```swift
/// var watch = PathWatch()
/// watch.observe(.setPathViable(false), [.cancelTimer(.retry), .report(.offline)], mayDial: false)   // []
/// watch.observe(.timerFired(.retry), [.openConnection(4, endpoint), …], mayDial: false)
/// // quiet: ["open g4 … while the app reports the network path unviable"]
/// ```
///
/// It reads what the app and the wire see: the app's own path reports (the `setPathViable`
/// inputs), the sockets dialled (`openConnection`), the retries armed and the phases
/// reported. Nothing of the machine's bookkeeping (its `pathViable`, its failure count). A
/// waiting phase alone is no spending: a credentials refresh shows one, with no retry armed.
struct PathWatch {
    /// What the app said last (viable until it says otherwise).
    private(set) var viable = true
    /// The attempt number the manager reported last (connecting or open; 0 before any).
    private var lastAttempt = 0
    /// The attempt number the first attempt after the path's return may show at most; nil
    /// once it was checked (or before any loss).
    private var attemptCeiling: Int?

    struct Problems {
        var quiet: [String] = []
        var reconnect: [String] = []
    }

    /// Notes one step of the manager. `mayDial`: before the step, the app wanted a connection
    /// in the foreground, nothing stopped it, and no connection was live (open or opening)
    /// and no credentials refresh pending — the situation in which the path's return must
    /// dial at once.
    mutating func observe(_ input: Input, _ effects: [Effect], mayDial: Bool) -> Problems {
        var problems = Problems()
        if case .setPathViable(let now) = input, now != viable {
            viable = now
            if !now {
                // Losing the path spends nothing: the next attempt is at most the one after the last shown.
                attemptCeiling = lastAttempt + 1
            } else if mayDial, !effects.contains(where: Self.dials) {
                problems.reconnect.append("the path came back but nothing was dialled (\(Self.list(effects)))")
            }
        }
        for effect in effects {
            if !viable {
                switch effect {
                case .openConnection(let g, _):
                    problems.quiet.append("dials \(g) (after \(input)) while the app reports the network path unviable")
                case .startTimer(.retry, let delay):
                    problems.quiet.append(
                        "arms a retry in \(delay.traceFormatted) (after \(input)) without a network path")
                default:
                    break
                }
            }
            switch effect {
            case .report(.connecting(let attempt)):
                if let ceiling = attemptCeiling, viable {
                    if attempt > ceiling {
                        problems.quiet.append(
                            "resumes with attempt \(attempt) after the path came back; before it went, attempt \(ceiling - 1) was the last shown"
                        )
                    }
                    attemptCeiling = nil
                }
                lastAttempt = attempt
            case .report(.open(let attempt)):
                lastAttempt = attempt
            default:
                break
            }
        }
        return problems
    }

    private static func dials(_ effect: Effect) -> Bool {
        if case .openConnection = effect { true } else { false }
    }

    private static func list(_ effects: [Effect]) -> String {
        effects.isEmpty ? "no effects" : effects.map(\.description).joined(separator: "; ")
    }
}
