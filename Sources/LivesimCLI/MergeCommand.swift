import Foundation
import LiveConnectionSimulator

extension Command {
    /// `livesim merge A.json B.json …`: the shards of one exploration, joined.
    static let merge = Command(
        name: "merge",
        summary: "join the --report files of explore's shards into the summary one run would print",
        usage: """
            usage: livesim merge REPORT.json... [--report MERGED.json] [--overwrite]

            Reads the JSON reports that `livesim explore --shard K/N --report FILE` wrote (on
            one machine or many), checks that they explored the same thing (variant, duration,
            strategy, determinism) and share no seed, and prints the summary and failures a
            single run over all their seeds would print (the wall time is the longest shard's).

              REPORT.json    1 to 100000 report files
              --report FILE  also write the merged report (an existing FILE is refused unless --overwrite)
              --overwrite    replace an existing --report FILE
            """,
        exitCodes: [
            0: "every run of every report held every invariant",
            1: "a run failed, or an error (an unreadable report, reports that disagree or overlap)",
        ],
        parse: { arguments throws(ArgumentError) in
            let output = try arguments.option("--report")
            if output?.isEmpty == true { throw .invalidValue("--report", "", expected: "a file name") }
            let overwrite = try arguments.flag("--overwrite")
            var paths: [String] = []
            while let path = try arguments.optionalPositional() {
                paths.append(path)
                guard paths.count <= 100_000 else {
                    throw .outOfRange("REPORT.json", "\(paths.count) files", range: "1 to 100000 files")
                }
            }
            try arguments.finish()
            guard !paths.isEmpty else { throw .missingPositional("REPORT.json (one or more)") }
            return { [paths] in
                try mergeReports(paths, output: output.map { ReportOutput(path: $0, overwrite: overwrite) })
            }
        })
}

private func mergeReports(_ paths: [String], output: ReportOutput?) throws -> Int32 {
    try output?.checkWritable()
    var reports: [ExplorationReport] = []
    for path in paths {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure("cannot read \(clipped(path, to: 200)): no such file, or not readable")
        }
        do { reports.append(try ExplorationReport(decoding: data)) } catch {
            throw CommandFailure("\(clipped(path, to: 200)): \(error)")
        }
    }
    let merged: ExplorationReport
    do { merged = try ExplorationReport.merge(reports) } catch { throw CommandFailure("\(error)") }
    let ranges = merged.results.seeds.map { "\($0.from)..<\($0.to)" }.joined(separator: ", ")
    print(
        "livesim merge: \(reports.count) report(s), \(merged.results.runs) seeds (\(ranges)) × "
            + "\(formatDuration(.milliseconds(merged.results.durationMilliseconds))), strategy "
            + "\(merged.results.strategy ?? "per seed"), variant \(merged.results.variant)")
    if let output { try output.write(merged) }
    printReport(merged)
    return merged.passed ? 0 : 1
}
