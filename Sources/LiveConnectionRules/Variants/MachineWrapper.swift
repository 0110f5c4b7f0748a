package import LiveConnection

/// A broken variant that keeps all of its state in the ``ConnectionMachine`` it wraps.
///
/// ```swift
/// var machine = ConnectionMachine(configuration: configuration)
/// let effects = SkipsResubscribe.step(.opened(g1), machine: &machine, using: &random)
/// ```
///
/// Because the wrapper adds no state of its own, a caller that owns the machine (the
/// model checker, which packs machines into integers) can step the wrapper by rebuilding
/// it around the machine for each input, and so checks the very code the simulator runs.
package protocol MachineWrapper: ConnectionLogic {
    init(base: ConnectionMachine)
    var base: ConnectionMachine { get }
}

extension MachineWrapper {
    package var phase: Phase { base.phase }

    /// One input through the wrapper around `machine`, leaving the new machine in place.
    package static func step(
        _ input: Input, machine: inout ConnectionMachine, using random: inout some RandomSource
    ) -> [Effect] {
        var wrapper = Self(base: machine)
        let effects = wrapper.handle(input, using: &random)
        machine = wrapper.base
        return effects
    }
}
