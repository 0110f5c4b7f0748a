import Dispatch
import LiveConnection

// The search is `@inlinable`, so that a model's own module compiles it specialized for
// that model (unspecialized, over half of a search's time went to the runtime's generic
// machinery). Inlinable code may call only what the model's module can see; these are
// the few calls that stay out of line, behind names this module exports for the purpose.

/// Runs `body(0)` … `body(iterations - 1)` on up to `iterations` threads and returns when all have.
@usableFromInline func concurrentlyPerform(iterations: Int, _ body: @Sendable (Int) -> Void) {
    DispatchQueue.concurrentPerform(iterations: iterations, execute: body)
}

/// A search's wall time in seconds, as ``SearchStatistics/seconds`` reports it.
@usableFromInline func searchSeconds(_ elapsed: Duration) -> Double { elapsed.seconds }
