import Foundation
import LiveConnectionSimulator

/// Where `--report` writes an exploration report, and whether it may replace a file.
struct ReportOutput: Sendable {
    var path: String
    var overwrite: Bool

    /// Fails if the file exists (without `--overwrite`) or its directory does not: checked
    /// before an exploration starts, so its results are never lost to a bad path.
    func checkWritable() throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue {
                throw CommandFailure("\(clipped(path, to: 200)): is a directory, not a report file")
            }
            if !overwrite {
                throw CommandFailure("\(clipped(path, to: 200)): already exists (--overwrite replaces it)")
            }
        }
        let directory = (path as NSString).deletingLastPathComponent
        guard directory.isEmpty || FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory),
            directory.isEmpty || isDirectory.boolValue
        else { throw CommandFailure("\(clipped(directory, to: 200)): no such directory for the report") }
    }

    /// Writes the report and says where on standard error.
    func write(_ report: ExplorationReport) throws {
        try report.encoded().write(to: URL(fileURLWithPath: path))
        standardError("report written to \(path)")
    }
}
