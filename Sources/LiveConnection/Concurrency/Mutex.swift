#if !LIVECONNECTION_TSAN
    package import Synchronization
#endif

#if LIVECONNECTION_TSAN
    /// The package's lock in a ThreadSanitizer build: `SanitizerVisibleMutex`, whose pthread
    /// locking TSan sees (the shipped build's declaration below says how files import it).
    package typealias Mutex<Value: ~Copyable> = SanitizerVisibleMutex<Value>
#else
    /// The package's lock: the standard library's `Synchronization.Mutex`, except in a
    /// ThreadSanitizer build (`-Xswiftc -DLIVECONNECTION_TSAN`), where it is
    /// `SanitizerVisibleMutex`, whose pthread locking TSan sees.
    ///
    /// ```swift
    /// import typealias LiveConnection.Mutex
    ///
    /// let state = Mutex(0)
    /// state.withLock { $0 += 1 }
    /// ```
    ///
    /// The one declaration of the name for every module of the package. Why one: it was copied
    /// into twelve modules as `Mutex+Sanitizer.swift`, and a module without its copy failed only
    /// in the TSan build, late in CI. Every file outside this module that names `Mutex` imports
    /// it by name, `import typealias LiveConnection.Mutex` (`public`/`package` in front when the
    /// file imports LiveConnection so): a scoped import shadows the standard library's `Mutex`
    /// even in a file that also imports `Synchronization` (for `Atomic`), where a plain
    /// `import LiveConnection` would leave the name ambiguous in the TSan build.
    /// `SanitizerAliasTests` checks the rule in the debug run. Why TSan needs it: docs/ci.md.
    package typealias Mutex<Value: ~Copyable> = Synchronization.Mutex<Value>
#endif
