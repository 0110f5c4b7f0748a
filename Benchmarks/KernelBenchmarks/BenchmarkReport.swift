import BenchmarkSupport
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
        var lines = BenchmarkMachine.current.markdown
        lines.append("")
        if !preamble.isEmpty { lines.append(contentsOf: preamble + [""]) }
        for table in tables { lines.append(contentsOf: [table.markdown, ""]) }
        return lines.joined(separator: "\n")
    }

    func write(to path: String) throws {
        try ResultsFile(path: path, title: "# \(title)").write(section: "run", markdown)
        print("wrote \(path)")
    }
}

/// "5.12 M" for 5_120_000: figures a reader compares at a glance.
func millions(_ value: Double) -> String {
    String(format: "%.2f M", value / 1_000_000)
}
