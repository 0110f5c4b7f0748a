public import Foundation

/// A directory of trace files: `Traces/` in the repository, from which the regression
/// suite replays them, or ``scratchDirectory``, where found counterexamples are written.
///
/// ```swift
/// let library = TraceLibrary(directory: URL(fileURLWithPath: "Traces"))
/// let url = try library.write(trace, named: TraceLibrary.fileName(invariant: "resubscribe-before-open", seed: 12))
/// for file in try library.files() { print(file.lastPathComponent) }   // sorted by name
/// ```
public struct TraceLibrary: Sendable {
    /// The directory holding the `.trace` files.
    public let directory: URL

    public init(directory: URL) { self.directory = directory }

    /// Where traces go unless someone asks for another place: `.livesim/traces`, relative
    /// to the current directory (the package's root under `swift test` and `swift run`).
    /// The test suite does not replay it and git does not see it (``hideScratchFolder(of:)``),
    /// so an experiment never changes `swift test`'s verdict or `git status`.
    public static let scratchDirectory = ".livesim/traces"

    /// The `.gitignore` written into `.livesim/`: everything in it, itself included.
    static let scratchIgnoreText = "# written by livesim: scratch traces, never committed\n*\n"

    /// When `directory` lies in a `.livesim` folder, makes sure that folder holds the
    /// `.gitignore` that hides it, so no user has to edit their own `.gitignore` first (an
    /// existing one is left as it is). ``write(_:named:)`` calls it.
    public static func hideScratchFolder(of directory: URL) throws {
        let components = directory.standardizedFileURL.pathComponents
        guard let index = components.lastIndex(of: ".livesim") else { return }
        let folder = URL(fileURLWithPath: NSString.path(withComponents: Array(components[...index])))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let ignore = folder.appendingPathComponent(".gitignore")
        guard !FileManager.default.fileExists(atPath: ignore.path) else { return }
        try Data(scratchIgnoreText.utf8).write(to: ignore, options: .atomic)
    }

    /// `Traces/` at the root of the package that contains `filePath` (found by walking up
    /// to the directory holding `Package.swift`), for tests that sit inside the package.
    public static func package(containing filePath: String = #filePath) -> TraceLibrary? {
        var directory = URL(fileURLWithPath: filePath).deletingLastPathComponent()
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
                return TraceLibrary(directory: directory.appendingPathComponent("Traces"))
            }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    /// `<invariant>-seed<N>.trace`: the name a shrunk counterexample is saved under.
    public static func fileName(invariant: String, seed: UInt64, variant: String? = nil) -> String {
        (variant.map { "\($0)-" } ?? "") + "\(invariant)-seed\(seed).trace"
    }

    /// Every `.trace` file in the directory, sorted by name (never in directory order).
    public func files() throws -> [URL] {
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "trace" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// Writes `trace` as `name` (creating the directory) and returns its URL.
    @discardableResult
    public func write(_ trace: Trace, named name: String) throws -> URL {
        try Self.hideScratchFolder(of: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try Data(trace.encode().utf8).write(to: url, options: .atomic)
        return url
    }

    /// Writes `trace` to a file at `path` (any directory).
    public static func write(_ trace: Trace, toFile path: String) throws {
        try Data(trace.encode().utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
