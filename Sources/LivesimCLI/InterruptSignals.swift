import Dispatch
import Foundation

import typealias LiveConnection.Mutex

/// SIGINT (Ctrl-C) and SIGTERM as an async sequence, so a command can end gracefully (send
/// its close frame, say "stopped") instead of dying mid-frame. While it exists the default
/// action (terminate) is off for both signals; the exit status after one is 128 + its number
/// (130 for SIGINT, 143 for SIGTERM), as shells report it.
final class InterruptSignals: Sendable {
    let signals: AsyncStream<Int32>
    /// In a mutex only because dispatch sources are not `Sendable`; set once, cancelled once.
    private let sources: Mutex<[any DispatchSourceSignal]>

    init() {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        signals = stream
        sources = Mutex(
            [SIGINT, SIGTERM].map { number in
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number)
                source.setEventHandler { continuation.yield(number) }
                source.resume()
                return source
            })
    }

    /// Restores the default actions: a second Ctrl-C after this ends the process at once.
    func restoreDefaults() {
        sources.withLock { sources in
            for source in sources { source.cancel() }
            sources = []
        }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }

    static func exitStatus(for number: Int32) -> Int32 { 128 + number }
}
