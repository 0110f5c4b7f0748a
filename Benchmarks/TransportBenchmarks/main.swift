import BenchmarkSupport
// Transport benchmarks (release build): echo round trips, ours next to the Python
// websockets client and a raw-socket client with no WebSocket library, all against the same
// server in one run — our own `livesim serve --echo` (native), then the Python `websockets`
// echo server; and frame decode throughput for 64 KiB binary frames, next to a plain memory
// copy of the same bytes. Prints the figures and writes them to Benchmarks/results/transport.md.
import Foundation
import LiveConnection
import WebSocketTransport

let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
let peers = root.appendingPathComponent("Tests/WebSocketTransportTests/Peers")

/// The echo servers the clients are measured against.
enum EchoServer: CaseIterable {
    /// `livesim serve --echo`, from the same build as this benchmark.
    case native
    /// The test suite's `echo_server.py` (Python websockets, one process).
    case python

    var name: String {
        switch self {
        case .native: "livesim serve --echo"
        case .python: "Python websockets echo_server.py"
        }
    }

    /// Starts the server and returns it with its port (read from its first line of output).
    func start() throws -> (Process, Int) {
        let process = Process()
        switch self {
        case .native:
            let livesim = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
                .appendingPathComponent("livesim")
            process.executableURL = livesim
            process.arguments = ["serve", "--echo", "--port", "0", "--duration", "3600"]
        case .python:
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", peers.appendingPathComponent("echo_server.py").path]
            process.currentDirectoryURL = peers
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = Pipe()  // the Python server exits when this process does
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        while !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        // "PORT 1234" (Python) or "listening on ws://127.0.0.1:1234" (livesim).
        let digits = text.prefix { $0 != "\n" }.reversed().prefix { $0.isNumber }.reversed()
        guard text.hasPrefix("PORT ") || text.hasPrefix("listening on "), let port = Int(String(digits)) else {
            throw BenchmarkError(
                "\(name) did not start (build livesim with `swift build -c release`; `pip install websockets`): \(text)"
            )
        }
        return (process, port)
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// One client's figures: round trips per second, and the CPU each round trip cost the
/// client and the server (microseconds).
struct EchoFigures {
    var rate = 0.0
    var clientCPU = Double.infinity
    var serverCPU = Double.infinity

    /// The best of two runs: the highest rate, the lowest costs (the least disturbed).
    mutating func keepBest(_ other: EchoFigures) {
        rate = max(rate, other.rate)
        clientCPU = min(clientCPU, other.clientCPU)
        serverCPU = min(serverCPU, other.serverCPU)
    }

    var cpuCell: String { String(format: "%.1f + %.1f µs", clientCPU, serverCPU) }
}

func ourRoundTrips(url: URL, rounds: Int, size: Int, server: Int32) async throws -> EchoFigures {
    let connection = try await WebSocketTransport().open(Endpoint(url: url))
    let payload = Message.text(String(repeating: "x", count: size))
    for _ in 0..<100 {
        try await connection.send(payload)
        _ = try await connection.receive()
    }
    let clock = ContinuousClock()
    let (ownBefore, serverBefore) = (CPUTime.own, CPUTime.of(server))
    let start = clock.now
    for _ in 0..<rounds {
        try await connection.send(payload)
        _ = try await connection.receive()
    }
    let elapsed = start.duration(to: clock.now)
    let (ownAfter, serverAfter) = (CPUTime.own, CPUTime.of(server))
    await connection.close(code: .normal, reason: "")
    return EchoFigures(
        rate: Double(rounds) / seconds(elapsed),
        clientCPU: CPUTime.microseconds(ownAfter - ownBefore, per: rounds),
        serverCPU: CPUTime.microseconds(serverAfter - serverBefore, per: rounds))
}

/// A Python client's figures: it prints its rate and its own CPU per timed round trip; the
/// server's CPU is taken around the whole run (its 100 warm-up round trips and the
/// handshake included, so a little high).
func pythonRoundTrips(_ command: String, rounds: Int, server: Int32) throws -> EchoFigures {
    let serverBefore = CPUTime.of(server)
    let output = shell(command)
    let serverAfter = CPUTime.of(server)
    let fields = output.split(separator: " ").compactMap { Double($0) }
    guard fields.count == 2 else { throw BenchmarkError("a Python client failed: \(output)") }
    return EchoFigures(
        rate: fields[0], clientCPU: fields[1],
        serverCPU: CPUTime.microseconds(serverAfter - serverBefore, per: rounds + 100))
}

func seconds(_ duration: Duration) -> Double {
    let (whole, attoseconds) = duration.components
    return Double(whole) + Double(attoseconds) * 1e-18
}

/// Decodes `frames` 64 KiB binary frames, `passes` times; bytes per second.
func decodeThroughput(passes: Int) -> (decode: Double, copy: Double) {
    let frameSize = 64 * 1024
    let frameCount = 256
    var stream: [UInt8] = []
    stream.reserveCapacity(frameCount * (frameSize + 10))
    for index in 0..<frameCount {
        stream += [0x82, 127, 0, 0, 0, 0, 0, 1, 0, 0]
        stream += [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: frameSize)
    }
    let clock = ContinuousClock()
    var checksum = 0
    let decodeStart = clock.now
    for _ in 0..<passes {
        var decoder = FrameDecoder(maxMessageSize: 1 << 20)
        // Fed as a socket would: 64 KiB reads that do not line up with frames.
        var offset = 0
        while offset < stream.count {
            let end = min(stream.count, offset + 65536)
            stream[offset..<end].withUnsafeBytes { decoder.append($0) }
            offset = end
            while case .message(.binary(let data))? = try? decoder.nextEvent() { checksum &+= data.count }
        }
    }
    let decodeTime = seconds(decodeStart.duration(to: clock.now))
    // The baseline: copying the same bytes once (what any decoder must at least do).
    // Filled with non-zero bytes so its pages are mapped before the clock starts.
    var sink = [UInt8](repeating: 1, count: stream.count)
    let copyStart = clock.now
    for _ in 0..<passes {
        sink.withUnsafeMutableBytes { target in stream.withUnsafeBytes { target.copyMemory(from: $0) } }
        checksum &+= Int(sink[passes % sink.count])
    }
    let copyTime = seconds(copyStart.duration(to: clock.now))
    precondition(checksum != 0, "the decoder produced nothing")
    let bytes = Double(stream.count * passes)
    return (bytes / decodeTime, bytes / copyTime)
}

func run() async throws {
    let rounds = 5_000
    let repetitions = 5
    var echoRows: [String] = []
    let scripts = root.appendingPathComponent("Benchmarks/TransportBenchmarks").path
    for kind in EchoServer.allCases {
        let (server, port) = try kind.start()
        defer { server.terminate() }
        let url = URL(string: "ws://127.0.0.1:\(port)/")!
        for size in [16, 1024] {
            // Interleaved and repeated, best of each: the cores are shared, and a burst of
            // someone else's work should not land on one client only.
            var ours = EchoFigures(), python = EchoFigures(), floor = EchoFigures()
            let pid = server.processIdentifier
            for _ in 0..<repetitions {
                ours.keepBest(try await ourRoundTrips(url: url, rounds: rounds, size: size, server: pid))
                python.keepBest(
                    try pythonRoundTrips(
                        "python3 '\(scripts)/python_echo_client.py' '\(url.absoluteString)' \(rounds) \(size)",
                        rounds: rounds, server: pid))
                floor.keepBest(
                    try pythonRoundTrips(
                        "python3 '\(scripts)/python_raw_client.py' \(port) \(rounds) \(size)", rounds: rounds,
                        server: pid))
            }
            let row = String(
                format: "| %@ | echo round trips/s, %d-byte text | %.0f | %.0f (Python websockets client) | %.2f× |",
                kind.name, size, ours.rate, python.rate, ours.rate / python.rate)
            // How close each client gets to a nearly free client on the same server.
            let floorRow = String(
                format:
                    "| %@ | against the raw-socket client (%.0f/s), %d-byte | %.0f%% | %.0f%% (Python client) | %.2f× |",
                kind.name, floor.rate, size, 100 * ours.rate / floor.rate, 100 * python.rate / floor.rate,
                ours.rate / floor.rate)
            // Where a round trip's CPU goes: which side a remaining gap is on.
            let cpuRow =
                "| \(kind.name) | CPU per round trip, \(size)-byte: client + server | \(ours.cpuCell) "
                + "| raw-socket client \(floor.cpuCell); Python client \(python.cpuCell) | — |"
            print(row)
            print(floorRow)
            print(cpuRow)
            echoRows += [row, floorRow, cpuRow]
        }
    }
    let (decode, copy) = decodeThroughput(passes: 40)
    let decodeCells = String(
        format: "%.2f GB/s | %.2f GB/s (memcpy of the same bytes) | %.2f×", decode / 1e9, copy / 1e9, decode / copy)
    print("| decode 64 KiB binary frames | \(decodeCells) |")

    let report = """
        \(BenchmarkMachine.current.markdown.joined(separator: "\n"))
        - build: `swift build -c release`, then `.build/release/TransportBenchmarks` (it starts
          `.build/release/livesim serve --echo`, then `Tests/WebSocketTransportTests/Peers/echo_server.py`
          with Python websockets \(shell("python3 -c 'import websockets; print(websockets.__version__)'")); loopback)

        | server | measure | ours | baseline | ratio |
        | --- | --- | --- | --- | --- |
        \(echoRows.joined(separator: "\n"))
        | — | decode 64 KiB binary frames | \(decodeCells) |

        Echo: \(rounds) sequential round trips (send, wait for the echo) on one connection after
        100 warm-up ones, all clients against the same server process in the same run,
        interleaved \(repetitions) times; the best rate of each is reported. Goals against
        the native server (issue 11): at least 3× the Python websockets client and at least
        0.8× the raw-socket client. The raw-socket client is Python with no WebSocket library
        in its loop (pre-encoded frame, blocking `send`/`recv`): the limit a client can reach
        on that server. The single-threaded Python server is kept as the second row set: it is
        the ceiling both clients shared before `livesim serve` existed.
        Decode: 256 frames of 64 KiB fed in 64 KiB reads that do not line up with frame
        boundaries, 40 passes; the baseline copies the same bytes once per pass.
        CPU per round trip: the CPU time (all threads, `/proc/PID/task/*/schedstat`) the client
        and the server used over the timed round trips, divided by their number; the lowest of
        the repetitions. A Python client measures its own (`time.process_time`); the server's
        figure beside it includes that client's handshake and warm-up round trips.

        """
    let results = ResultsFile(
        path: root.appendingPathComponent("Benchmarks/results/transport.md").path, title: "# Transport benchmarks")
    try results.write(section: "run", report)
    print("wrote \(results.path)")
}

do {
    // `TransportBenchmarks client PORT ROUNDS SIZE`: only our client's round trips against a
    // server already running, as the Python clients take one: for strace and perf.
    let arguments = CommandLine.arguments
    if arguments.count == 5, arguments[1] == "client", let port = Int(arguments[2]), let rounds = Int(arguments[3]),
        let size = Int(arguments[4])
    {
        let figures = try await ourRoundTrips(
            url: URL(string: "ws://127.0.0.1:\(port)/")!, rounds: rounds, size: size, server: 0)
        print(String(format: "%.1f %.2f", figures.rate, figures.clientCPU))
    } else {
        try await run()
    }
} catch {
    FileHandle.standardError.write(Data("TransportBenchmarks: \(error)\n".utf8))
    exit(1)
}
