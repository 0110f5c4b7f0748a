import Foundation
import LiveTestServer
import WebSocketTransport
import WireHistory

import typealias LiveConnection.Mutex

/// `--record FILE` of `serve`, `proxy` and `torture`: the server's (or the proxy's) observer
/// from the moment it is made, writing to the file once it is bound and its URL known (the
/// header names it). One ``WireHistoryRecorder`` records either.
final class HistoryRecording: ServerWireObserver, ProxyObserver {
    let path: String
    /// The header as known when the server is made; its URL and origin are set at the start.
    private let header: WireHistoryHeader
    private let recorder = Mutex<WireHistoryRecorder?>(nil)

    /// Checks at once that the file can be created, so that a bad path stops the command
    /// before it serves anything.
    convenience init(
        path: String, mode: String, configuration: WebSocketServer.Configuration,
        faults: WireHistoryHeader.FaultSchedule?
    )
        throws(WireHistoryError)
    {
        var server = [
            "mode": mode, "host": configuration.host,
            "handshakeTimeout": WireHistoryRecord(at: configuration.handshakeTimeout, event: .end).secondsText,
            "closeTimeout": WireHistoryRecord(at: configuration.closeTimeout, event: .end).secondsText,
            "maxMessageSize": "\(configuration.maxMessageSize)",
        ]
        server["tls"] = configuration.tls == nil ? "false" : "true"
        try self.init(path: path, server: server, faults: faults)
    }

    /// For the proxy: the header's `server` is the proxy's configuration, with `mode` `proxy`
    /// (or `torture` when torture runs it) and the `upstream` URL.
    convenience init(
        path: String, mode: String, proxy configuration: WebSocketProxy.Configuration,
        faults: WireHistoryHeader.FaultSchedule?
    ) throws(WireHistoryError) {
        let server = [
            "mode": mode, "host": configuration.host, "upstream": configuration.upstream.absoluteString,
            "tls": configuration.tls == nil ? "false" : "true",
            "handshakeTimeout": WireHistoryRecord(at: configuration.handshakeTimeout, event: .end).secondsText,
            "closeTimeout": WireHistoryRecord(at: configuration.closeTimeout, event: .end).secondsText,
            "maxMessageSize": "\(configuration.maxMessageSize)",
        ]
        try self.init(path: path, server: server, faults: faults)
    }

    private init(path: String, server: [String: String], faults: WireHistoryHeader.FaultSchedule?)
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
        let writer = try WireHistoryWriter(path: path, header: header, queueLimit: Self.queueLimit) { failure in
            standardError("livesim: the wire history stopped: \(failure)")
        }
        recorder.withLock { $0 = WireHistoryRecorder(writer: writer) }
    }

    func observe(_ event: ServerWireEvent, on connection: ServerConnection?) {
        recorder.withLock { $0 }?.observe(event, on: connection)
    }

    func observe(_ event: ProxyEvent) {
        recorder.withLock { $0 }?.observe(event)
    }

    func observe(_ fault: ProxyFault, aimedAt target: FaultTarget) {
        recorder.withLock { $0 }?.observe(fault, aimedAt: target)
    }

    /// Records wait for ``drain()`` in a queue of at most this many (about 5 MB of lines): a
    /// connection's task never waits for the disk; past it records are dropped, counted, and
    /// the command exits 1 naming the count.
    static let queueLimit = 65_536

    /// Writes the queued records as they come, until cancelled: a child task beside the server.
    func drain() async {
        await recorder.withLock { $0 }?.writer.drain()
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
