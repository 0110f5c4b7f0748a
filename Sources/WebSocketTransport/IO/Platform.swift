#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// The POSIX calls whose names our types also use (`connect`, `shutdown`, `close`),
// reached through one place instead of `#if` at every call site.

func posixClose(_ descriptor: Int32) {
    #if canImport(Glibc)
        _ = Glibc.close(descriptor)
    #else
        _ = Darwin.close(descriptor)
    #endif
}

func posixShutdown(_ descriptor: Int32) {
    #if canImport(Glibc)
        _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
    #else
        _ = Darwin.shutdown(descriptor, SHUT_RDWR)
    #endif
}

func posixShutdownWrite(_ descriptor: Int32) {
    #if canImport(Glibc)
        _ = Glibc.shutdown(descriptor, Int32(SHUT_WR))
    #else
        _ = Darwin.shutdown(descriptor, SHUT_WR)
    #endif
}

func posixConnect(_ descriptor: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    #if canImport(Glibc)
        Glibc.connect(descriptor, address, length)
    #else
        Darwin.connect(descriptor, address, length)
    #endif
}
