import Dispatch
import Synchronization

/// Runs async work from a synchronous command and waits for its result.
///
/// `Command.run` is synchronous, and the network commands are async. The main thread
/// (not a cooperative-pool thread) blocks on a semaphore while the work runs on the
/// pool. This is the executable's edge, not library code: the library itself never
/// creates unstructured tasks.
func runAsync<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let result = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let outcome: Result<T, any Error>
        do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
        result.withLock { $0 = outcome }
        done.signal()
    }
    done.wait()
    guard let outcome = result.withLock({ $0 }) else { preconditionFailure("runAsync finished without a result") }
    return try outcome.get()
}
