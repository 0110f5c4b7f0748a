/// The decision-making half the manager runs: ``ConnectionMachine``, or a wrapper around it.
///
/// ```swift
/// /// A deliberately broken variant: forgets to resubscribe (the simulator must catch it).
/// struct SkipsResubscribe: ConnectionLogic {
///     var base: ConnectionMachine
///     var phase: Phase { base.phase }
///     mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect] {
///         base.handle(input, using: &random).filter {
///             if case .send(_, .control(.subscribe)) = $0 { false } else { true }
///         }
///     }
/// }
/// ```
///
/// The seam exists so broken variants can be built by rewriting inputs or effects,
/// without a mutation switch inside the machine that ships.
public protocol ConnectionLogic: Sendable {
    /// Handles one input and returns the effects, in order.
    mutating func handle(_ input: Input, using random: inout some RandomSource) -> [Effect]
    /// The phase the app sees.
    var phase: Phase { get }
}

extension ConnectionMachine: ConnectionLogic {}
