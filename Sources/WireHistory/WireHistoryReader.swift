import Foundation

/// Reads a wire history line by line: the header first, then each record, with the file
/// and line number in every error, and times checked never to go backwards.
///
/// ```swift
/// var reader = try WireHistoryReader(path: "run.jsonl")
/// print(reader.header.faults?.seed as Any)
/// while let record = try reader.next() { print(record.at, record.event) }
/// ```
///
/// It reads the file in blocks, not whole, so a long history costs the memory of one block.
/// Blank lines are skipped; anything else that is not a record is an error, never skipped.
public struct WireHistoryReader {
    public let path: String
    public let header: WireHistoryHeader
    private var lines: LineReader
    private var last: Duration = .zero

    /// Opens the file and reads its header.
    public init(path: String) throws(WireHistoryError) {
        self.path = path
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw WireHistoryError(file: path, line: nil, reason: "cannot open: \(String(cString: strerror(errno)))")
        }
        var lines = LineReader(handle: handle)
        guard let (number, first) = try lines.next(path: path) else {
            throw WireHistoryError(file: path, line: nil, reason: "empty: a history starts with its header line")
        }
        do {
            header = try WireHistoryHeader(line: first)
        } catch {
            throw WireHistoryError(file: path, line: number, reason: error.text)
        }
        self.lines = lines
    }

    /// The next record, or nil at the end of the file.
    public mutating func next() throws(WireHistoryError) -> WireHistoryRecord? {
        guard let (number, line) = try lines.next(path: path) else { return nil }
        let record: WireHistoryRecord
        do {
            record = try WireHistoryRecord(line: line)
        } catch {
            throw WireHistoryError(file: path, line: number, reason: error.text)
        }
        guard record.at >= last else {
            throw WireHistoryError(
                file: path, line: number,
                reason:
                    "time goes backwards: t \(WireHistoryRecord.seconds(record.at)) after \(WireHistoryRecord.seconds(last))"
            )
        }
        last = record.at
        return record
    }

    /// Every record of the file at `path` (for tests and small files).
    public static func records(at path: String) throws(WireHistoryError) -> (WireHistoryHeader, [WireHistoryRecord]) {
        var reader = try WireHistoryReader(path: path)
        var records: [WireHistoryRecord] = []
        while let record = try reader.next() { records.append(record) }
        return (reader.header, records)
    }
}

/// Lines of a file, read in 64 KiB blocks; lines are numbered from 1 and blank ones skipped.
private struct LineReader {
    let handle: FileHandle
    var buffer: [UInt8] = []
    var start = 0
    var number = 0
    var atEnd = false
    /// A line longer than this is refused (a history line is a few hundred bytes).
    static let limit = 1 << 20

    init(handle: FileHandle) { self.handle = handle }

    mutating func next(path: String) throws(WireHistoryError) -> (Int, String)? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 10) {
                let bytes = buffer[start..<newline]
                start = newline + 1
                number += 1
                if let line = try text(bytes, path: path) { return (number, line) }
                continue
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                let bytes = buffer[start...]
                start = buffer.count
                number += 1
                if let line = try text(bytes, path: path) { return (number, line) }
                return nil
            }
            guard buffer.count - start <= Self.limit else {
                throw WireHistoryError(file: path, line: number + 1, reason: "a line longer than \(Self.limit) bytes")
            }
            buffer.removeFirst(start)
            start = 0
            let block: Data?
            do {
                block = try handle.read(upToCount: 65_536)
            } catch {
                throw WireHistoryError(file: path, line: nil, reason: "cannot read: \(error.localizedDescription)")
            }
            if let block, !block.isEmpty { buffer += block } else { atEnd = true }
        }
    }

    private func text(_ bytes: ArraySlice<UInt8>, path: String) throws(WireHistoryError) -> String? {
        guard let line = String(validating: bytes, as: UTF8.self) else {
            throw WireHistoryError(file: path, line: number, reason: "not UTF-8")
        }
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }
}
