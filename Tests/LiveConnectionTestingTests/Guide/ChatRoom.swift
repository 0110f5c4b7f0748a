import Foundation
import LiveConnection

/// The guide's example app code: a chat room's screen model on top of `ConnectionManager`.
///
/// It must show every message of the room exactly once, in the order the server sent
/// them, however often the connection drops. The manager resumes from the last sequence
/// number after a reconnect, so the model only has to append what it is given, decode it,
/// and keep its list across reconnects.
actor ChatRoom {
    struct Line: Hashable, Sendable {
        var sequence: UInt64
        var text: String
    }

    /// What the screen shows, oldest first.
    private(set) var lines: [Line] = []
    /// The connection status line ("connecting…", "online", "offline").
    private(set) var status = "offline"
    /// Ranges the server could not replay (the screen shows "some messages are missing").
    private(set) var gaps: [Range<UInt64>] = []

    /// When true, the model clears its list whenever the connection starts over: the bug
    /// the guide shows the simulator finding (the resumed stream only has what was missed,
    /// so everything shown before the drop disappears).
    let clearsOnReconnect: Bool

    init(clearsOnReconnect: Bool = false) { self.clearsOnReconnect = clearsOnReconnect }

    /// Reads the manager's events until the stream ends (the task is cancelled).
    func follow(_ events: ConnectionEvents) async {
        for await event in events { apply(event) }
    }

    func apply(_ event: ConnectionEvent) {
        switch event {
        case .phase(.open): status = "online"
        case .phase(.connecting):
            status = "connecting…"
            if clearsOnReconnect { lines.removeAll() }  // the bug we will plant
        case .phase: status = "offline"
        case .message(let message, _):
            if let line = Self.decode(message) { lines.append(line) }
        case .gap(let expected, let received): gaps.append(expected..<received)
        }
    }

    /// The server's frames are `{"seq":N,"topic":"room","text":"…"}`.
    static func decode(_ message: Message) -> Line? {
        guard case .text(let text) = message,
            let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let sequence = (object["seq"] as? NSNumber)?.uint64Value,
            let body = object["text"] as? String
        else { return nil }
        return Line(sequence: sequence, text: body)
    }
}
