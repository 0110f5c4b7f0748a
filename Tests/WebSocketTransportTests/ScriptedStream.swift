import LiveConnection

import typealias LiveConnection.Mutex

@testable import WebSocketTransport

/// An in-memory ``ByteStream`` standing in for a server: it hands the client the bytes it
/// is given and records, unmasked, every frame the client writes.
///
/// With `answersPings`, it answers each client ping with a pong carrying the same payload.
final class ScriptedStream: ByteStream {
    private struct State {
        var incoming: [[UInt8]] = []
        var reader: CheckedContinuation<[UInt8]?, Never>?
        var ended = false
        var written: [UInt8] = []
        var shutDown = false
    }

    private let state = Mutex(State())
    private let answersPings: Bool

    init(answersPings: Bool = false) { self.answersPings = answersPings }

    /// Delivers bytes to the client's next read.
    func deliver(_ bytes: [UInt8]) {
        let reader: CheckedContinuation<[UInt8]?, Never>? = state.withLock { state in
            if let reader = state.reader {
                state.reader = nil
                return reader
            }
            state.incoming.append(bytes)
            return nil
        }
        reader?.resume(returning: bytes)
    }

    /// Ends the stream (the client's next read sees EOF).
    func end() {
        let reader = state.withLock { state in
            state.ended = true
            return state.reader.take()
        }
        reader?.resume(returning: [])
    }

    func read(maximum: Int, until deadline: ContinuousClock.Instant?) async throws(TransportError) -> [UInt8] {
        // Like the real socket, a read waiting for bytes ends when its task is cancelled.
        let bytes: [UInt8]? = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready: [UInt8]?? = state.withLock { state in
                    if !state.incoming.isEmpty { return state.incoming.removeFirst() }
                    if state.ended { return [] }
                    if Task.isCancelled { return .some(nil) }
                    state.reader = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            state.withLock { $0.reader.take() }?.resume(returning: nil)
        }
        guard let bytes else { throw .cancelled }
        return bytes
    }

    func write(_ bytes: [UInt8], until deadline: ContinuousClock.Instant?) async throws(TransportError) {
        state.withLock { $0.written += bytes }
        guard answersPings else { return }
        for frame in ScriptedStream.frames(in: bytes) where frame.opcode == .ping {
            deliver(serverFrame(opcode: Opcode.pong.rawValue, frame.payload))
        }
    }

    /// The client's half-close: the scripted server does what servers do on end-of-stream
    /// and closes its side too, so reads see what was delivered, then EOF. (Deadlines are
    /// not modelled, so a lingering close must end this way rather than by timing out.)
    func shutdownWrite() { end() }

    func reset() { shutdown() }

    /// Like `shutdown(2)` on a socket, it also ends a read that is waiting.
    func shutdown() {
        let reader = state.withLock { state in
            state.shutDown = true
            state.ended = true
            return state.reader.take()
        }
        reader?.resume(returning: [])
    }

    var isShutDown: Bool { state.withLock { $0.shutDown } }

    /// Whether a read is waiting for bytes (deadlines are not modelled: a test that needs
    /// one must not leave a read waiting on a silent script).
    var hasWaitingReader: Bool { state.withLock { $0.reader != nil } }

    /// Every frame the client wrote, unmasked.
    var writtenFrames: [(opcode: Opcode, payload: [UInt8], maskKey: UInt32?)] {
        ScriptedStream.frames(in: state.withLock { $0.written })
    }

    var writtenBytes: [UInt8] { state.withLock { $0.written } }

    static func frames(in bytes: [UInt8]) -> [(opcode: Opcode, payload: [UInt8], maskKey: UInt32?)] {
        var frames: [(opcode: Opcode, payload: [UInt8], maskKey: UInt32?)] = []
        var rest = bytes
        while let header = try? FrameHeader.parse(rest), rest.count >= header.headerLength + Int(header.payloadLength) {
            var payload = Array(rest[header.headerLength..<header.headerLength + Int(header.payloadLength)])
            if let key = header.maskKey {
                let keyBytes = [UInt8(key >> 24), UInt8(key >> 16 & 0xFF), UInt8(key >> 8 & 0xFF), UInt8(key & 0xFF)]
                payload.withUnsafeMutableBufferPointer { FrameEncoder.applyMask(keyBytes, to: $0) }
            }
            frames.append((header.opcode, payload, header.maskKey))
            rest.removeFirst(header.headerLength + Int(header.payloadLength))
        }
        return frames
    }
}
