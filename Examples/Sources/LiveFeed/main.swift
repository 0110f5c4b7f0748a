// live-feed: the smallest useful app on the manager. It connects with WebSocketTransport,
// subscribes to one topic and prints every event the manager reports (phases, messages in
// order, gaps), across drops and reconnects, until it has seen COUNT messages or is stopped.
//
//     swift run --package-path Examples live-feed ws://127.0.0.1:8080/live prices --count 3 --timeout 30
//
// The server must follow docs/server-contract.md (as `livesim serve` does; `.ci/live-feed-check`
// runs this app against it).
// Exit status: 0 after COUNT messages (or at the timeout when there is no COUNT), 1 if the
// timeout passed before COUNT messages, 64 for bad arguments.
import Foundation
import LiveConnection
import WebSocketTransport

let usage = "usage: live-feed ws[s]://HOST[:PORT]/PATH TOPIC [--count N] [--timeout SECONDS]"

struct Options {
    var url: URL
    var topic: String
    /// Stop after this many messages (nil: run until stopped).
    var count: Int?
    /// Give up after this long (nil: no deadline).
    var timeout: Duration?

    init?(_ arguments: [String]) {
        var positional: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--") else {
                positional.append(argument)
                continue
            }
            guard index < arguments.endIndex else { return nil }
            let value = arguments[index]
            index += 1
            switch argument {
            case "--count":
                guard let count = Int(value), count >= 1 else { return nil }
                self.count = count
            case "--timeout":
                guard let seconds = Double(value), seconds > 0, seconds <= 86_400 else { return nil }
                timeout = .milliseconds(Int64((seconds * 1000).rounded()))
            default: return nil
            }
        }
        guard positional.count == 2, let url = URL(string: positional[0]), ["ws", "wss"].contains(url.scheme),
            !positional[1].isEmpty
        else { return nil }
        self.url = url
        topic = positional[1]
    }
}

enum Outcome: Sendable {
    case received, timedOut, stopped
}

guard let options = Options(Array(CommandLine.arguments.dropFirst())) else {
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    exit(64)
}

let manager = ConnectionManager(transport: WebSocketTransport())
let outcome = await withTaskGroup(of: Outcome.self) { group in
    group.addTask {
        await manager.run()  // the manager's own work: connections, timers, heartbeats
        return .stopped
    }
    group.addTask {
        let events = await manager.events()  // before connecting, so no event is missed
        await manager.subscribe(options.topic)  // sent again on every new connection
        await manager.connect(to: options.url)
        var messages = 0
        for await event in events {
            print(event)
            guard case .message = event else { continue }
            messages += 1
            if messages == options.count { return .received }
        }
        return .stopped
    }
    if let timeout = options.timeout {
        group.addTask {
            try? await ContinuousClock().sleep(for: timeout)
            return .timedOut
        }
    }
    let first = await group.next() ?? .stopped
    group.cancelAll()  // stops the manager: it closes the connection with 1000
    return first
}

switch outcome {
case .received, .stopped: exit(0)
case .timedOut where options.count == nil: exit(0)  // "run for this long" was the whole request
case .timedOut:
    FileHandle.standardError.write(Data("live-feed: timed out before \(options.count ?? 0) messages\n".utf8))
    exit(1)
}
