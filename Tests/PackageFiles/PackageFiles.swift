public import Foundation

/// The package's own files, for tests that hold docs and sources to each other (the CLI
/// reference, the transition table, the documented delay files, every file's sanitizer alias).
///
/// ```swift
/// let page = try PackageFiles.text("docs/cli.md")
/// for source in PackageFiles.swiftSources(in: PackageFiles.root.appending(path: "Sources/LiveConnection")) { … }
/// ```
///
/// One place that knows where the package root is (this file sits in `Tests/PackageFiles/`),
/// instead of each test counting `deletingLastPathComponent()`s from its own depth.
public enum PackageFiles {
    /// The folder holding `Package.swift`.
    public static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A file or folder of the package, by its path from the root (`"docs/cli.md"`).
    public static func url(_ path: String) -> URL { root.appending(path: path) }

    /// The UTF-8 text of a file of the package.
    public static func text(_ path: String) throws -> String { try String(contentsOf: url(path), encoding: .utf8) }

    /// The folders directly inside a folder of the package (`"Sources"`: its modules), by path.
    public static func folders(in path: String) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: url(path), includingPropertiesForKeys: [.isDirectoryKey])
            .filter { (try? $0.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true }
            .sorted { $0.path < $1.path }
    }

    /// Every `.swift` file below a folder, at any depth: its name and its text.
    public static func swiftSources(in folder: URL) -> [(name: String, text: String)] {
        let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        var sources: [(name: String, text: String)] = []
        while let file = walker?.nextObject() as? URL {
            guard file.pathExtension == "swift", let text = try? String(contentsOf: file, encoding: .utf8) else {
                continue
            }
            sources.append((file.lastPathComponent, text))
        }
        return sources
    }

    /// Every `.swift` file below a folder of the package, at any depth: its path from the
    /// package root (`"Sources/LiveConnection/Concurrency/Mutex.swift"`) and its text, by path.
    public static func swiftFiles(under path: String) -> [(path: String, text: String)] {
        let base = root.standardizedFileURL.path + "/"
        let walker = FileManager.default.enumerator(at: url(path), includingPropertiesForKeys: nil)
        var files: [(path: String, text: String)] = []
        while let file = walker?.nextObject() as? URL {
            guard file.pathExtension == "swift", let text = try? String(contentsOf: file, encoding: .utf8) else {
                continue
            }
            files.append((String(file.standardizedFileURL.path.dropFirst(base.count)), text))
        }
        return files.sorted { $0.path < $1.path }
    }
}
