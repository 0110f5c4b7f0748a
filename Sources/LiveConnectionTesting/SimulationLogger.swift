/// A logger your code under test can hold: its lines go into the running simulation's
/// trace, at the virtual time they were written, between the actions and the managers'
/// phases of the same moment.
///
/// ```swift
/// // The model takes a logging function, as it would take a clock:
/// actor Feed {
///     let log: @Sendable (String) -> Void
///     init(log: @escaping @Sendable (String) -> Void = { _ in }) { self.log = log }
///     func apply(_ event: ConnectionEvent) { …; log("cleared \(lines.count) lines") }
/// }
/// // The test injects the world's logger:
/// try simulate(seed: seed) { world in
///     let feed = Feed(log: world.logger(named: "feed").log)   // "log feed: cleared 3 lines"
///     …
/// }
/// ```
///
/// Code of your test target that is not handed the world (a helper, a fake) can reach it
/// through ``SimulationWorld/current``, the world of the simulation running the task.
public struct SimulationLogger: Sendable {
    let world: SimulationWorld
    /// Put before each line (`name: `), or nothing.
    let name: String?

    /// Writes `text` into the trace's timeline as `log text` (or `log name: text`), now.
    public func log(_ text: String) {
        world.log(name.map { "\($0): \(text)" } ?? text)
    }

    /// The same as ``log(_:)``: `logger("…")`.
    public func callAsFunction(_ text: String) { log(text) }
}

extension SimulationWorld {
    /// The world of the simulation this task runs in (set for the body of
    /// `simulate(seed:)` and every child task it starts), or nil outside one.
    @TaskLocal public static var current: SimulationWorld?

    /// A logger into this world's trace for code under test (``SimulationLogger``).
    public var logger: SimulationLogger { SimulationLogger(world: self, name: nil) }

    /// A logger whose lines start with `name: `, to tell several components apart.
    public func logger(named name: String) -> SimulationLogger { SimulationLogger(world: self, name: name) }
}
