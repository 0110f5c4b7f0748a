import Foundation
import LiveTestServer
import Synchronization
import WebSocketTransport
import WireHistory

/// `--record FILE` of `serve` and `torture`: the server's observer from the moment it is made,
/// writing to the file once the server is bound and its URL known (the header names it).
final class HistoryRecording: ServerWireObserver {
    let path: String
    /// The header as known when the server is made; its URL and origin are set at the start.
    private let header: WireHistoryHeader
    private let recorder = Mutex<WireHistoryRecorder?>(nil)

    /// Checks at once that the file can be created, so that a bad path stops the command
    /// before it serves anything.
    init(
        path: String, mode: String, configuration: WebSocketServer.Configuration,
        faults: WireHistoryHeader.FaultSchedule?
    )
        throws(WireHistoryError)
    {
        self.path = path
        // Opened, not replaced (no atomic rename over a device or a link), and closed again:
        // the writer truncates it once the server is bound.
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw WireHistoryError(
                file: path, line: nil, reason: "cannot create the file: \(String(cString: strerror(errno)))")
        }
        close(descriptor)
        var server = [
            "mode": mode, "host": configuration.host,
            "handshakeTimeout": WireHistoryRecord(at: configuration.handshakeTimeout, event: .end).secondsText,
            "closeTimeout": WireHistoryRecord(at: configuration.closeTimeout, event: .end).secondsText,
            "maxMessageSize": "\(configuration.maxMessageSize)",
        ]
        server["tls"] = configuration.tls == nil ? "false" : "true"
        header = WireHistoryHeader(server: server, faults: faults, origin: "")
    }

    /// The server is bound: the history starts now, its header naming `url`.
    func started(url: String, idleTimeout: Duration? = nil) throws(WireHistoryError) {
        var header = self.header
        header.server["url"] = url
        if let idleTimeout {
            header.server["idleTimeout"] = WireHistoryRecord(at: idleTimeout, event: .end).secondsText
        }
        header.origin = ISO8601DateFormatter().string(from: Date())
        let path = self.path
        let writer = try WireHistoryWriter(path: path, header: header) { failure in
            standardError("livesim: the wire history stopped: \(failure)")
        }
        recorder.withLock { $0 = WireHistoryRecorder(writer: writer) }
    }

    func observe(_ event: ServerWireEvent, on connection: ServerConnection?) {
        recorder.withLock { $0 }?.observe(event, on: connection)
    }

    /// Records the end instant (what follows is the teardown of the clients).
    func end() { recorder.withLock { $0 }?.end() }

    /// Closes the file; 0, or throws the write error that stopped the history.
    func finish() throws(WireHistoryError) -> Int32 {
        guard let recorder = recorder.withLock({ $0 }) else { return 0 }
        try recorder.writer.close()
        return 0
    }
}
