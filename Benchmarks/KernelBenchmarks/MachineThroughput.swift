import Foundation
import LiveConnection

/// Inputs per second through the pure `ConnectionMachine`: one connection's life, over
/// and over: connect, handshake, resubscribe, a run of heartbeats and sequenced messages,
/// a reset, the retry. Everything the simulator and the manager pay per input.
enum MachineThroughput {
    static let topics = ["availability", "loans", "holds"]

    /// Runs `cycles` lives; returns the number of inputs handled and effects produced.
    static func run(cycles: Int) -> (inputs: Int, effects: Int) {
        var configuration = ConnectionConfiguration()
        configuration.backoff = .fullJitter(base: .milliseconds(100), cap: .seconds(2))
        var machine = ConnectionMachine(configuration: configuration)
        var random = Xoshiro256StarStar(seed: 1)
        let endpoint = Endpoint(url: URL(string: "wss://bench.test/live")!)
        var inputs = 0
        var effects = 0
        var sequence: UInt64 = 0
        let message = Message.text("update")
        func handle(_ input: Input) {
            effects += machine.handle(input, using: &random).count
            inputs += 1
        }
        for topic in topics { handle(.subscribe(topic)) }
        handle(.connect(endpoint))
        for _ in 0..<cycles {
            let g = machine.generation
            handle(.opened(g))
            handle(.flushed(g))
            for _ in 0..<10 {
                handle(.timerFired(.heartbeat(g)))
                sequence += 1
                handle(.received(g, message, sequence: sequence))
                handle(.timerFired(.heartbeat(g)))
                handle(.pong(g))
            }
            handle(.failed(g, .reset(errno: "ECONNRESET")))
            handle(.timerFired(.retry))
        }
        return (inputs, effects)
    }
}
