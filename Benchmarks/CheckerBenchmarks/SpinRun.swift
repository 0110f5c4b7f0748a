import Foundation

/// One run of SPIN 6.5.2 on `Benchmarks/spin/connection.pml`: generates the verifier with
/// the bounds, compiles it as the SPIN README says (`gcc -O2 -DSAFETY -DMEMLIM=16000`) and
/// runs it, in a temporary directory; reads what `pan` reports.
///
/// ```swift
/// if let spin = try SpinRun.run(model: pml, maxGeneration: 60, maxSequence: 60, maxFailures: 8) {
///     print(spin.stored, spin.rate)
/// }
/// ```
struct SpinRun {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// "N states, stored".
    var stored: Int
    /// "N transitions (= stored+matched)".
    var transitions: Int
    /// "pan: elapsed time S seconds": the search alone, not the compilation.
    var seconds: Double
    /// "State-vector N byte".
    var stateVector: Int
    /// "actual memory usage for states" plus "memory used for hash table", in bytes: what
    /// SPIN keeps per state, comparable with our search's own structures.
    var stateBytes: Double
    /// "total actual memory usage", in bytes (adds the DFS stack that `-m` sizes).
    var totalBytes: Double
    /// Peak resident memory of the `pan` process.
    var peakResidentBytes: Int
    /// User + system CPU seconds `pan` used (the machine is shared: wall time includes
    /// waiting for a core, CPU time does not).
    var cpuSeconds: Double
    /// The load average before the run (filled in by the caller).
    var load = ""
    var rate: Double { Double(stored) / seconds }

    /// Whether `spin` and `gcc` are on the PATH.
    static var available: Bool {
        ["spin", "gcc"].allSatisfy { tool in
            run("/bin/sh", ["-c", "command -v \(tool)"], in: FileManager.default.temporaryDirectory).status == 0
        }
    }

    static func run(model: URL, maxGeneration: Int, maxSequence: Int, maxFailures: Int) throws -> SpinRun {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "spin-model-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.copyItem(at: model, to: directory.appendingPathComponent("connection.pml"))
        let defines = ["-DMAXGEN=\(maxGeneration)", "-DMAXSEQ=\(maxSequence)", "-DMAXFAIL=\(maxFailures)"]
        try check(Self.run("/usr/bin/env", ["spin"] + defines + ["-a", "connection.pml"], in: directory), "spin -a")
        try check(
            Self.run(
                "/usr/bin/env", ["gcc", "-O2", "-DSAFETY", "-DMEMLIM=16000", "-o", "pan", "pan.c"], in: directory),
            "gcc")
        let cpuBefore = childrenCPUSeconds()
        let pan = Self.run(directory.appendingPathComponent("pan").path, ["-m10000000"], in: directory)
        try check(pan, "pan")
        var result = try parse(pan.output, peakResidentBytes: pan.peakResidentBytes)
        result.cpuSeconds = childrenCPUSeconds() - cpuBefore
        return result
    }

    static func parse(_ report: String, peakResidentBytes: Int) throws -> SpinRun {
        if report.contains("max search depth too small") {
            throw Failure(description: "pan's depth bound (-m) was too small: its state count is incomplete")
        }
        if report.contains("errors: 0") == false {
            throw Failure(description: "pan found an error:\n\(report)")
        }
        func number(before suffix: String) throws -> Double {
            guard let line = report.split(separator: "\n").first(where: { $0.contains(suffix) }),
                let value = line.components(separatedBy: suffix)[0].split(whereSeparator: \.isWhitespace).last
                    .flatMap({ Double($0) })
            else { throw Failure(description: "pan's report has no \"\(suffix)\":\n\(report)") }
            return value
        }
        func number(after prefix: String) throws -> Double {
            guard let range = report.range(of: prefix),
                let value = report[range.upperBound...].split(whereSeparator: \.isWhitespace).first.flatMap({
                    Double($0)
                })
            else { throw Failure(description: "pan's report has no \"\(prefix)\":\n\(report)") }
            return value
        }
        let megabyte = 1_048_576.0
        return SpinRun(
            stored: Int(try number(before: " states, stored")),
            transitions: Int(try number(before: " transitions (= stored+matched)")),
            seconds: try number(after: "pan: elapsed time "),
            stateVector: Int(try number(after: "State-vector ")),
            stateBytes: (try number(before: "actual memory usage for states")
                + number(before: "memory used for hash table"))
                * megabyte,
            totalBytes: try number(before: "total actual memory usage") * megabyte,
            peakResidentBytes: peakResidentBytes, cpuSeconds: 0)
    }

    /// User + system CPU seconds of the children that ended so far.
    private static func childrenCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    private static func check(_ result: (status: Int32, output: String, peakResidentBytes: Int), _ step: String) throws
    {
        guard result.status == 0 else {
            throw Failure(description: "\(step) exited with \(result.status):\n\(result.output)")
        }
    }

    /// Runs a tool to completion: its exit status, standard output and error, and its peak
    /// resident memory (the children's maximum, read after it exited: the largest child so far).
    private static func run(_ tool: String, _ arguments: [String], in directory: URL)
        -> (status: Int32, output: String, peakResidentBytes: Int)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do { try process.run() } catch { return (127, "\(tool): \(error)", 0) }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        return (process.terminationStatus, String(decoding: data, as: UTF8.self), usage.ru_maxrss * 1024)
    }
}
