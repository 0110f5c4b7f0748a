/// The candidate the `.simulation` trait's shrinking is trying: which simulation of the
/// test case (by the order the case ran them) and which of its `perform` calls to keep.
///
/// ```swift
/// // Installed around one re-run of the case while it is shrunk:
/// ShrinkCandidate.$current.withValue(ShrinkCandidate(simulation: 0, keptPerforms: [0, 3, 17])) { … }
/// ```
struct ShrinkCandidate: Sendable {
    /// The candidate of the re-run in this task, if shrinking is under way.
    @TaskLocal static var current: ShrinkCandidate?

    /// Which `simulate(seed:)` call of the case it applies to (0: the first).
    var simulation: Int
    /// The numbers of the `perform` calls that run; every other call is skipped.
    var keptPerforms: Set<Int>
}
