public import Foundation

/// Starting a child process and holding thousands of descriptors open take turns.
///
/// On this toolchain, Foundation's `Process.run()` finds the highest open descriptor by
/// reading `/proc/self/fd` and copies each `dirent` whole, 280 bytes, though glibc sizes the
/// records to their names: the copy of the last record can read past glibc's buffer onto an
/// unmapped page. The more descriptors are open, the larger that listing. The clean-clone
/// CI of session 11 crashed that way (SIGSEGV in `memmove` inside `Process.run()`, two
/// `livesim` spawns at once) while the server test that opens a thousand connections (two
/// thousand descriptors) ran; newer Foundation copies only the name. So every test spawns
/// through ``Process/runGated()``, and a test that opens thousands of descriptors runs its
/// body in ``holdingManyDescriptors(_:)``: no spawn starts until it has closed them.
public enum DescriptorGate {
    private static let condition = NSCondition()
    private nonisolated(unsafe) static var spawning = 0
    private nonisolated(unsafe) static var holding = false

    /// Runs `body` (which opens and closes thousands of descriptors) once no spawn is under
    /// way; spawns wait until it returns.
    public static func holdingManyDescriptors<T>(_ body: () async throws -> T) async rethrows -> T {
        enterHolding()
        defer { leaveHolding() }
        return try await body()
    }

    /// Blocks until no spawn is under way and nobody else holds; then holds.
    private static func enterHolding() {
        condition.lock()
        while holding || spawning > 0 { condition.wait() }
        holding = true
        condition.unlock()
    }

    private static func leaveHolding() {
        condition.lock()
        holding = false
        condition.broadcast()
        condition.unlock()
    }

    static func spawn(_ body: () throws -> Void) rethrows {
        condition.lock()
        while holding { condition.wait() }
        spawning += 1
        condition.unlock()
        defer {
            condition.lock()
            spawning -= 1
            condition.broadcast()
            condition.unlock()
        }
        try body()
    }
}

extension Process {
    /// `run()`, once no test holds thousands of descriptors open (``DescriptorGate``).
    public func runGated() throws { try DescriptorGate.spawn { try run() } }
}
