// The simulation test on README.md's first screen, compiled and run here (the README shows
// the test itself; `.ci/doc-snippets` checks that its lines are these).
import LiveConnection
import LiveConnectionSimulator
import LiveConnectionTesting
import Testing

@Suite("README: the simulation test")
struct ReadmeTests {
    @Test(.simulation, arguments: try Seeds.range(0..<100))
    func everyPriceArrivesOnceInOrder(seed: UInt64) throws {
        let sequences = try simulate(seed: seed) { world in
            let events = try await world.run(world.makeManager()) { manager in
                let events = await manager.events()
                try await world.perform(.subscribe("prices"), on: manager)
                try await world.perform(.connect(endpoint: 0), on: manager)
                try await world.clock.sleep(for: .seconds(1))
                try await world.perform(.broadcast(topic: "prices", text: "101.5"))
                try await world.perform(.resetConnection)  // the connection drops…
                try await world.perform(.broadcast(topic: "prices", text: "102.0"))  // …and misses this
                try await world.clock.sleep(for: .seconds(60))
                return events  // ends when the manager stops
            }
            var sequences: [UInt64] = []
            for await case .message(_, let sequence?) in events { sequences.append(sequence) }
            return sequences
        }
        #expect(sequences == [1, 2])  // resumed after the reset: both, once each, in order
    }
}
