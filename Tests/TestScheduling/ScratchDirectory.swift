public import Foundation

/// Where tests write their files: a fresh directory per ask, all of them under one directory
/// per test process, which is removed when the process exits.
///
/// ```swift
/// let directory = try ScratchDirectory.fresh("check")   // …/liveconnection-tests-4242/check-1
/// ```
///
/// Each test made its own directory under the system's temporary directory and most left it
/// there: over 28,000 had gathered on the machine the suite is developed on. Removing each
/// at its test's end would not do for the files a test hands to a child process or to a
/// later check, so they all share one root whose lifetime is the process's. A run that
/// crashes leaves its root, one directory, behind.
public enum ScratchDirectory {
    /// A new, empty directory, named `prefix-N` under this process's root.
    public static func fresh(_ prefix: String) throws -> URL {
        let url = root.appendingPathComponent("\(prefix)-\(counter.withLock { $0 += 1; return $0 })")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A new file holding `text`, alone in a fresh directory (its name is the caller's).
    public static func file(_ text: String, named name: String) throws -> URL {
        let url = try fresh("file").appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    private static let counter = Locked(0)

    /// `liveconnection-tests-<pid>` under the temporary directory; made, and its removal at
    /// exit registered, on first use.
    private static let root: URL = {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("liveconnection-tests-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.removeItem(at: url)  // a crashed run's, under a reused pid
        atexit { ScratchDirectory.removeRoot() }
        return url
    }()

    private static func removeRoot() { try? FileManager.default.removeItem(at: root) }
}
