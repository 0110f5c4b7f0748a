import Foundation
import TestScheduling

/// `Peers/ws_peer.py MODE` on loopback: a WebSocket server that hangs, records the close
/// frame it gets, or closes with 1008. Standard library Python only. It exits when this
/// process closes its standard input.
final class WebSocketPeer {
    private(set) var port: Int
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffered = ""

    struct NoPort: Error {}

    init(_ mode: String) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Peers/ws_peer.py")
        process.executableURL = PythonInterpreter.executable
        process.arguments = PythonInterpreter.arguments([script.path, mode])
        process.standardInput = input
        process.standardOutput = output
        try process.runGated()
        port = 0
        guard let line = readLine(), line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) else {
            throw NoPort()
        }
        self.port = port
    }

    var url: String { "ws://127.0.0.1:\(port)/" }

    /// The next line the peer prints, or nil if none comes within `seconds`.
    func readLine(within seconds: Double = 15) -> String? {
        let descriptor = output.fileHandleForReading.fileDescriptor
        let end = Date().addingTimeInterval(seconds)
        while !buffered.contains("\n") {
            let remaining = end.timeIntervalSinceNow
            guard remaining > 0 else { return nil }
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, Int32(remaining * 1000)) > 0 else { return nil }
            var bytes = [UInt8](repeating: 0, count: 4096)
            let count = read(descriptor, &bytes, bytes.count)
            guard count > 0 else { return nil }
            buffered += String(decoding: bytes[..<count], as: UTF8.self)
        }
        let line = buffered.prefix { $0 != "\n" }
        buffered.removeFirst(line.count + 1)
        return String(line)
    }

    deinit {
        try? input.fileHandleForWriting.close()
        _ = process.waitForExit(within: .seconds(30))
    }
}
