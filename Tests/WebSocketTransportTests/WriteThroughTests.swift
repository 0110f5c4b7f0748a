import Foundation
import LiveConnection
import TestScheduling
import Testing

@testable import WebSocketTransport

#if canImport(Glibc)
    import Glibc
#endif

/// A sender writing a frame itself in the idle writer's place (``WriteThrough``): the claim
/// keeps the writer to one at a time and the wire order, and what the socket does not take
/// is finished by the writer task.
@Suite("Server write-through", .waitsOnPeers, .timeLimit(.minutes(3)))
struct WriteThroughTests {
    /// An outbox whose senders may write through to one end of a socket pair (the other end is returned, unread).
    static func outbox() throws -> (Outbox, TCPSocket) {
        var descriptors: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &descriptors) == 0)
        let outbox = Outbox(byteLimit: 1 << 20)
        outbox.allowWriteThrough(
            WriteThrough(socket: TCPSocket(descriptor: descriptors[0]), deflater: nil, isOpen: { true }))
        return (outbox, TCPSocket(descriptor: descriptors[1]))
    }

    /// Claims the writer's place once the writer task waits in `next()`.
    static func claimOnceWaiting(_ outbox: Outbox) async throws -> WriteThrough {
        for _ in 0..<5_000 {
            if let claimed = outbox.claimIdleWriter(.data(.text), 1) { return claimed }
            try await ContinuousClock().sleep(for: .milliseconds(1))
        }
        throw CancellationError()
    }

    @Test("while a sender holds the idle writer's place, frames queue behind what it hands back")
    func claimKeepsOrder() async throws {
        let (outbox, peer) = try Self.outbox()
        _ = peer
        async let first = outbox.next()
        _ = try await Self.claimOnceWaiting(outbox)
        // Not handed to the waiting writer: it would write beside the sender.
        #expect(outbox.enqueue([2], .data(.text)) == nil)
        #expect(outbox.queuedBytes == 1)
        #expect(outbox.claimIdleWriter(.data(.text), 1) == nil, "one sender at a time")
        outbox.releaseWriter(
            handingOver: Outbox.Item(payload: [1], kind: .data(.text), enqueuedAt: .now, isRestOfFrame: true))
        let firstItem = await first
        #expect(firstItem?.payload == [1] && firstItem?.isRestOfFrame == true)
        let second = await outbox.next()
        #expect(second?.payload == [2] && second?.kind == .data(.text) && second?.isRestOfFrame == false)
    }

    @Test("no claim with a frame queued, for a close frame, after our close, or once ended")
    func claimRefused() async throws {
        let (outbox, peer) = try Self.outbox()
        _ = peer
        #expect(outbox.claimIdleWriter(.data(.text), 1) == nil, "no writer waiting yet")
        async let taken = outbox.next()
        _ = try await Self.claimOnceWaiting(outbox)
        outbox.releaseWriter(handingOver: nil)
        #expect(outbox.claimIdleWriter(.close(final: false), 2) == nil, "the writer sends close frames")
        #expect(outbox.enqueue([0x03, 0xE8], .close(final: false)) == nil)
        #expect(await taken?.kind == .close(final: false))
        #expect(outbox.claimIdleWriter(.data(.text), 1) == nil, "nothing after our close")
        outbox.end()
        #expect(outbox.claimIdleWriter(.pong, 1) == nil)
    }

    /// 4 MiB of a 251-byte ramp: a lost, repeated or reordered piece of the wire (the socket
    /// takes it in pieces of other sizes) shows. Made by blocks: cheap under a sanitizer too.
    static let large: Data = {
        let ramp = Data((0..<251).map { UInt8($0) })
        var data = Data(capacity: 4 << 20)
        while data.count + ramp.count <= 4 << 20 { data.append(ramp) }
        data.append(ramp.prefix((4 << 20) - data.count))
        return data
    }()

    @Test("a message larger than the socket takes arrives whole, the writer finishing it, and what follows after it")
    func partialWrite() async throws {
        struct Burst: WebSocketServerHandler {
            func received(_ message: Message, on connection: ServerConnection) async {
                guard message == .text("burst") else {
                    connection.send(message)
                    return
                }
                // Sent while the client reads nothing: the socket takes part of the first.
                connection.send(.binary(WriteThroughTests.large))
                connection.send(.text("after"))
            }
        }
        try await ServerHarness.with(handler: Burst()) { server in
            let (client, afterHead) = try await RawClient.upgraded(server)
            var decoder = afterHead
            try await client.write(RawClient.frame(.text, Array("burst".utf8)))
            let big = try await client.nextEvent(&decoder)
            #expect(big == .message(.binary(WriteThroughTests.large)), "the 4 MiB message, intact")
            #expect(try await client.nextEvent(&decoder) == .message(.text("after")))
            // The writer is idle again: the next echo is written through once more.
            for round in 0..<3 {
                try await client.write(RawClient.frame(.text, Array("echo \(round)".utf8)))
                #expect(try await client.nextEvent(&decoder) == .message(.text("echo \(round)")))
            }
        }
    }
}
