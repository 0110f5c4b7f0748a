import Foundation
import Testing
import WireHistory

/// The history writer's queue: a recording task never writes the file, the drain writes in
/// order, and a full queue drops records, counts them and makes the history fail at close.
@Suite("Wire history writer queue")
struct WireHistoryWriterTests {
    static func path() -> String {
        FileManager.default.temporaryDirectory.appending(path: "writer-\(UUID().uuidString).jsonl").path
    }

    static func lines(_ path: String) throws -> [Substring] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
    }

    @Test("queued records reach the file only through the drain, all of them, in order")
    func queuedInOrder() async throws {
        let path = Self.path()
        let writer = try WireHistoryWriter(path: path, header: .example, queueLimit: 1000)
        for connection in 1...200 { writer.record(.opened(connection: connection)) }
        // Recorded, not written: the recording side never touched the file.
        #expect(try Self.lines(path).count == 1)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await writer.drain() }
            let deadline = ContinuousClock.now + .seconds(20)
            while writer.recordCount < 200, ContinuousClock.now < deadline {
                try? await ContinuousClock().sleep(for: .milliseconds(5))
            }
            writer.record(.end)
            group.cancelAll()
        }
        try writer.close()
        let (_, records) = try WireHistoryReader.records(at: path)
        #expect(records.map(\.event) == (1...200).map { .opened(connection: $0) } + [.end])
        #expect(writer.droppedRecords == 0)
    }

    @Test("a full queue drops what does not fit, counts it, and close says the history has holes")
    func fullQueueDrops() throws {
        let path = Self.path()
        let writer = try WireHistoryWriter(path: path, header: .example, queueLimit: 10)
        // No drain runs: the eleventh record on finds the queue full.
        for connection in 1...25 { writer.record(.opened(connection: connection)) }
        #expect(writer.droppedRecords == 15)
        #expect {
            try writer.close()
        } throws: { error in
            "\(error)".contains("15 records were dropped") && "\(error)".hasPrefix("\(path): ")
        }
        // What fitted was written, in order.
        let (_, records) = try WireHistoryReader.records(at: path)
        #expect(records.map(\.event) == (1...10).map { .opened(connection: $0) })
    }

    @Test("without a queue each record is written as it is recorded")
    func unqueued() throws {
        let path = Self.path()
        let writer = try WireHistoryWriter(path: path, header: .example)
        writer.record(.opened(connection: 1))
        #expect(try Self.lines(path).count == 2)
        try writer.close()
    }
}
