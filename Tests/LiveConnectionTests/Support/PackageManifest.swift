import Foundation

/// The targets `Package.swift` declares, read from its text: each one's kind, name, path and
/// dependencies by name.
///
/// ```swift
/// let manifest = PackageManifest(text: try PackageFiles.text("Package.swift"))
/// manifest.targets.first { $0.name == "LiveConnection" }?.dependencies   // []
/// ```
///
/// Plain text, not `swift package dump-package`: a test that ran SwiftPM would need the
/// toolchain's package tooling at test time and seconds per run. The manifest is written in one
/// style, `.target(name: "X", dependencies: ["A", "B"], …)`, and this reads that style wherever
/// its line breaks fall, skipping comments and strings, so new targets (or reflowed lists) need
/// no change here.
struct PackageManifest {
    struct Target: Equatable {
        /// `target`, `executableTarget`, `testTarget`, `systemLibrary`, …
        var kind: String
        var name: String
        /// The `path:` argument, if any (support targets live under Tests/ and Benchmarks/).
        var path: String?
        /// The names in `dependencies: […]`, `.product(name:)` and `.target(name:)` by their name.
        var dependencies: [String]
    }

    var targets: [Target] = []

    init(text: String) {
        let code = Substring(Self.withoutComments(text))
        var parsedUpTo = code.startIndex
        for match in code.matches(
            of: /\.(target|executableTarget|testTarget|systemLibrary|binaryTarget|plugin|macro)\(/)
        {
            // A `.target(name:)` inside an earlier target's dependency list is a dependency.
            guard match.range.lowerBound >= parsedUpTo else { continue }
            let arguments = Self.balanced(code, from: match.range.upperBound, open: "(", close: ")")
            parsedUpTo = arguments.endIndex
            guard let name = arguments.firstMatch(of: /name:\s*"([^"]+)"/)?.output.1 else { continue }
            let path = arguments.firstMatch(of: /\bpath:\s*"([^"]+)"/).map { String($0.output.1) }
            var dependencies: [String] = []
            if let list = arguments.firstMatch(of: /dependencies:\s*\[/) {
                let items = Self.balanced(arguments, from: list.range.upperBound, open: "[", close: "]")
                for item in items.matches(of: /(\.\w+\(\s*name:\s*)?"([^"]+)"(\s*,\s*package:\s*"[^"]*")?/) {
                    dependencies.append(String(item.output.2))
                }
            }
            targets.append(
                Target(kind: String(match.output.1), name: String(name), path: path, dependencies: dependencies))
        }
    }

    /// The text inside a bracket that opened just before `start`, up to its matching close
    /// (brackets inside string literals do not count).
    static func balanced(_ text: Substring, from start: String.Index, open: Character, close: Character) -> Substring {
        var depth = 1
        var inString = false
        var index = start
        while index < text.endIndex {
            let character = text[index]
            if inString {
                if character == "\\" {
                    index = text.index(after: index)
                } else if character == "\"" {
                    inString = false
                }
            } else if character == "\"" {
                inString = true
            } else if character == open {
                depth += 1
            } else if character == close {
                depth -= 1
                if depth == 0 { return text[start..<index] }
            }
            if index < text.endIndex { index = text.index(after: index) }
        }
        return text[start...]
    }

    /// The manifest with its `//` comments removed (a `//` inside a string literal stays).
    static func withoutComments(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
            var inString = false
            var previous: Character = " "
            for index in line.indices {
                let character = line[index]
                if character == "\"" && previous != "\\" { inString.toggle() }
                if !inString && character == "/" && previous == "/" {
                    return line[line.startIndex..<line.index(before: index)]
                }
                previous = character
            }
            return line
        }.joined(separator: "\n")
    }
}
