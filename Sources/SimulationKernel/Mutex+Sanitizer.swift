// In a ThreadSanitizer build (-Xswiftc -DLIVECONNECTION_TSAN, as CI runs it) this module's
// `Mutex` is LiveConnection's pthread-based `SanitizerVisibleMutex`, whose locking TSan can
// see; otherwise it is the standard library's. Why: docs/ci.md.
#if LIVECONNECTION_TSAN
    import LiveConnection

    typealias Mutex<Value: ~Copyable> = SanitizerVisibleMutex<Value>
#endif
