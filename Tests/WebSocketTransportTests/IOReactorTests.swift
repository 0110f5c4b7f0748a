import Foundation
import TestScheduling
import Testing

@testable import WebSocketTransport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("I/O reactor", .waitsOnPeers, .timeLimit(.minutes(1)))
struct IOReactorTests {
    @Test("resumes a reader when its descriptor becomes readable")
    func readable() async throws {
        var descriptors: [Int32] = [0, 0]
        try #require(pipe(&descriptors) == 0)
        defer { descriptors.forEach { posixClose($0) } }
        let reader = descriptors[0]
        let writer = descriptors[1]
        async let outcome = IOReactor.shared.wait(for: .readable, on: reader)
        var byte: UInt8 = 7
        #expect(write(writer, &byte, 1) == 1)
        #expect(await outcome == .ready)
    }

    @Test("reports a passed deadline as timed out")
    func deadline() async {
        let outcome = await IOReactor.shared.wait(for: .readable, on: -1, until: .now + .milliseconds(20))
        #expect(outcome == .timedOut)
    }

    @Test("resumes a cancelled wait at once, whether cancelled before or while it waits")
    func cancellation() async {
        let outcomes = await withTaskGroup(of: IOReactor.Outcome.self) { group in
            for _ in 0..<50 {
                group.addTask { await IOReactor.shared.wait(for: .readable, on: -1) }
            }
            group.cancelAll()
            var outcomes: [IOReactor.Outcome] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        #expect(outcomes == Array(repeating: .cancelled, count: 50))
    }
}
