import Foundation
import PackageFiles
import Testing

/// Every module that locks with `Mutex` declares the sanitizer-visible alias of its own.
///
/// Why a test: in CI's ThreadSanitizer build (`-DLIVECONNECTION_TSAN`) each module's `Mutex`
/// must resolve to `SanitizerVisibleMutex`, and only a declaration inside the module can
/// shadow the standard library's (an imported alias would be ambiguous with it). A new module
/// without its `Mutex+Sanitizer.swift` builds and passes everywhere except in that TSan build,
/// late in CI, as `LiveConnectionWire` did; this check fails in the first `swift test`.
@Suite("Sanitizer-visible Mutex alias")
struct SanitizerAliasTests {
    /// The Swift modules of the package: each folder under Sources, Tests and Benchmarks.
    static func modules() throws -> [URL] {
        try ["Sources", "Tests", "Benchmarks"].flatMap { try PackageFiles.folders(in: $0) }
    }

    @Test("every module that uses Mutex declares the alias TSan builds need")
    func everyLockingModuleHasTheAlias() throws {
        let modules = try Self.modules()
        #expect(modules.contains { $0.lastPathComponent == "LiveConnectionWire" }, "the scan found the modules")
        var locking = 0
        for module in modules {
            let sources = PackageFiles.swiftSources(in: module)
            let uses = sources.contains { source in
                !source.name.contains("Sanitizer") && source.text.contains(/\bMutex(<|\()/)
            }
            guard uses else { continue }
            locking += 1
            let declares = sources.contains {
                $0.text.contains(/typealias Mutex<Value: ~Copyable> = SanitizerVisibleMutex/)
            }
            #expect(
                declares,
                "\(module.lastPathComponent) uses Mutex but has no Mutex+Sanitizer.swift: copy Sources/LiveTestServer/Mutex+Sanitizer.swift"
            )
        }
        #expect(locking >= 10, "found \(locking) locking modules; the scan must see the package's sources")
    }
}
