import Foundation

/// Figures from one benchmark run, printed as they are measured and written as Markdown.
///
/// ```swift
/// var report = BenchmarkReport(title: "Kernel")
/// report.add(Table(title: "Executor", columns: ["workload", "jobs/s"], rows: [["yield", "5.1 M"]]))
/// try report.write(to: "Benchmarks/results/kernel.md")
/// ```
///
/// A benchmark executable builds one report so that every results file has the same
/// shape: the machine it ran on (date, `uname -srm`, `nproc`, CPU model), then tables.
struct BenchmarkReport {
    struct Table {
        var title: String
        var columns: [String]
        var rows: [[String]]
        var notes: [String] = []

        var markdown: String {
            var lines = ["## \(title)", ""]
            lines.append("| " + columns.joined(separator: " | ") + " |")
            lines.append("|" + columns.map { _ in " --- |" }.joined())
            for row in rows { lines.append("| " + row.joined(separator: " | ") + " |") }
            if !notes.isEmpty { lines.append("") }
            lines.append(contentsOf: notes)
            return lines.joined(separator: "\n")
        }
    }

    let title: String
    var preamble: [String] = []
    private(set) var tables: [Table] = []

    init(title: String, preamble: [String] = []) {
        self.title = title
        self.preamble = preamble
    }

    /// Adds a table and prints it at once, so a long run shows progress.
    mutating func add(_ table: Table) {
        tables.append(table)
        print(table.markdown)
        print()
    }

    var markdown: String {
        let machine = Machine.current
        var lines = ["# \(title)", ""]
        lines.append("- date: \(machine.date)")
        lines.append("- uname -srm: \(machine.uname)")
        lines.append("- nproc: \(machine.nproc) (nproc --all: \(machine.allProcessors))")
        lines.append("- load average at the end (the machine is shared): \(machine.load)")
        lines.append("- CPU: \(machine.cpu)")
        lines.append("")
        if !preamble.isEmpty { lines.append(contentsOf: preamble + [""]) }
        for table in tables { lines.append(contentsOf: [table.markdown, ""]) }
        return lines.joined(separator: "\n")
    }

    func write(to path: String) throws {
        try markdown.write(toFile: path, atomically: true, encoding: .utf8)
        print("wrote \(path)")
    }
}

/// The machine a benchmark ran on, as the house rules ask results files to record it.
struct Machine {
    let date: String
    let uname: String
    let nproc: String
    let allProcessors: String
    let cpu: String
    let load: String

    static var current: Machine {
        let formatter = ISO8601DateFormatter()
        let cpu =
            (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n")
            .first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" }
            ?? "unknown"
        return Machine(
            date: formatter.string(from: Date()),
            uname: output(of: "/usr/bin/env", ["uname", "-srm"]),
            nproc: output(of: "/usr/bin/env", ["nproc"]),
            allProcessors: output(of: "/usr/bin/env", ["nproc", "--all"]),
            cpu: cpu,
            load: (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?
                .split(separator: " ").prefix(3).joined(separator: " ") ?? "unknown")
    }

    private static func output(of executable: String, _ arguments: [String]) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        do { try process.run() } catch { return "unknown (\(error))" }
        process.waitUntilExit()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// "5.12 M" for 5_120_000: figures a reader compares at a glance.
func millions(_ value: Double) -> String {
    String(format: "%.2f M", value / 1_000_000)
}
