import Foundation
import PackageFiles
import Testing

/// The package's `Mutex` is declared once, in LiveConnection, and every file that locks with it
/// imports that declaration by name.
///
/// Why a test: in CI's ThreadSanitizer build (`-DLIVECONNECTION_TSAN`) `Mutex` must resolve to
/// `SanitizerVisibleMutex` in every file, or TSan reports every access under the lock as a race.
/// A file that names `Mutex` with only `import Synchronization` builds and passes everywhere and
/// silently gets the standard library's lock in the TSan build; a file that imports both
/// `Synchronization` and `LiveConnection` without the scoped import fails to build there
/// (`Mutex` is ambiguous), late in CI, as `LiveConnectionWire` once did. This check fails in the
/// first `swift test` instead. The rule itself: `Sources/LiveConnection/Concurrency/Mutex.swift`.
@Suite("Sanitizer-visible Mutex alias")
struct SanitizerAliasTests {
    /// The one file that declares the name.
    static let declaration = "Sources/LiveConnection/Concurrency/Mutex.swift"

    /// Whether a file carries the line every file outside LiveConnection that names `Mutex` needs
    /// (`public` or `package` in front when it imports LiveConnection at that level, which the
    /// scoped import must match).
    static func importsAlias(_ text: String) -> Bool {
        text.split(separator: "\n").contains {
            $0.hasSuffix("import typealias LiveConnection.Mutex")
                && $0.wholeMatch(of: /((public|package) )?import typealias LiveConnection\.Mutex/) != nil
        }
    }

    /// Every Swift file of the package's modules (under Sources, Tests and Benchmarks), by its
    /// path from the package root, with its text.
    static func sources() -> [(path: String, text: String)] {
        ["Sources", "Tests", "Benchmarks"].flatMap { PackageFiles.swiftFiles(under: $0) }
    }

    /// Whether a file locks with `Mutex` (`Mutex(…)` or `Mutex<…>`; `SanitizerVisibleMutex` is not a use).
    static func namesMutex(_ text: String) -> Bool { text.contains("Mutex") && text.contains(/\bMutex(<|\()/) }

    @Test("the alias is declared once, for the shipped build and the TSan build")
    func oneDeclaration() throws {
        let declaring = Self.sources().filter { source in
            // `contains` first: a regex on every line of the package takes a minute.
            source.text.contains("typealias")
                && source.text.split(separator: "\n").contains {
                    $0.contains("typealias")
                        && $0.wholeMatch(
                            of: /\s*((public|package|internal|fileprivate|private)\s+)?typealias\s+Mutex\b.*/) != nil
                }
        }.map(\.path)
        #expect(declaring == [Self.declaration], "declare Mutex only in \(Self.declaration), found it in \(declaring)")
        let text = try PackageFiles.text(Self.declaration)
        #expect(text.contains("#if LIVECONNECTION_TSAN"), "the alias switches on the flag docs/ci.md's TSan step sets")
        #expect(text.contains(/typealias Mutex<Value: ~Copyable> = SanitizerVisibleMutex<Value>/))
        #expect(text.contains(/typealias Mutex<Value: ~Copyable> = Synchronization\.Mutex<Value>/))
    }

    @Test("every file outside LiveConnection that names Mutex imports the package's alias by name")
    func everyLockingFileImportsTheAlias() throws {
        let sources = Self.sources()
        // LiveConnection's own files see the module's declaration, which shadows every import;
        // this suite names Mutex only in its patterns.
        let others = sources.filter {
            !$0.path.hasPrefix("Sources/LiveConnection/") && !$0.path.hasSuffix("/SanitizerAliasTests.swift")
        }
        var locking = 0
        for source in others where Self.namesMutex(source.text) {
            locking += 1
            #expect(
                Self.importsAlias(source.text),
                "\(source.path) names Mutex without `import typealias LiveConnection.Mutex`: in the TSan build it would lock with the standard library's Mutex or fail as ambiguous"
            )
        }
        // A scoped import of the standard library's lock would shadow the package's alias in any
        // file, LiveConnection's own included.
        let scopedStandard = sources.filter {
            $0.text.contains("import struct Synchronization.Mutex") && !$0.path.hasSuffix("/SanitizerAliasTests.swift")
        }
        #expect(
            scopedStandard.isEmpty,
            "\(scopedStandard.map(\.path)) import the standard library's Mutex by name, which TSan cannot see"
        )
        #expect(locking >= 50, "found \(locking) locking files; the scan must see the package's sources")
        #expect(
            sources.contains { $0.path.hasPrefix("Sources/LiveConnectionWire/") && Self.namesMutex($0.text) },
            "the scan found LiveConnectionWire's locking files"
        )
    }

    @Test("no module keeps a copy of the alias file")
    func noCopies() throws {
        let copies = Self.sources().map(\.path).filter { $0.hasSuffix("/Mutex+Sanitizer.swift") }
        #expect(copies.isEmpty, "delete \(copies): \(Self.declaration) declares Mutex for every module")
    }
}
