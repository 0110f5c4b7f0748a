import Foundation
import LiveConnection
import LiveConnectionSimulator
import TestScheduling
import Testing

@Suite("Trace library")
struct TraceLibraryTests {
    @Test("written traces are listed sorted by name and read back unchanged")
    func writeAndList() throws {
        let directory = try ScratchDirectory.fresh("trace-library").appendingPathComponent("traces")
        let library = TraceLibrary(directory: directory)
        #expect(try library.files().isEmpty)
        let trace = TraceRoundTripTests.sample()
        try library.write(trace, named: TraceLibrary.fileName(invariant: "single-live-transport", seed: 9))
        try library.write(trace, named: TraceLibrary.fileName(invariant: "dead-peer-detected", seed: 12))
        try Data("not a trace".utf8).write(to: directory.appendingPathComponent("README.md"))
        let files = try library.files()
        #expect(
            files.map(\.lastPathComponent) == ["dead-peer-detected-seed12.trace", "single-live-transport-seed9.trace"])
        let text = try String(contentsOf: files[0], encoding: .utf8)
        #expect(try Trace(parsing: text) == trace)
    }

    @Test("the package's Traces/ directory is found from a source file inside it")
    func packageDirectory() throws {
        let library = try #require(TraceLibrary.package())
        #expect(library.directory.lastPathComponent == "Traces")
        #expect(
            FileManager.default.fileExists(
                atPath: library.directory.deletingLastPathComponent().appendingPathComponent("Package.swift").path))
    }
}
