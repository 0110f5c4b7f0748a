#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The symbolic name of an errno value, as the manager shows it ("error ECONNRESET").
///
/// Names, not numbers, because the numbers differ between Linux and Darwin and a log
/// line or a trace must read the same on both.
func errnoName(_ code: Int32) -> String {
    switch code {
    case ECONNRESET: "ECONNRESET"
    case EPIPE: "EPIPE"
    case ETIMEDOUT: "ETIMEDOUT"
    case ECONNREFUSED: "ECONNREFUSED"
    case ECONNABORTED: "ECONNABORTED"
    case EHOSTUNREACH: "EHOSTUNREACH"
    case ENETUNREACH: "ENETUNREACH"
    case ENETDOWN: "ENETDOWN"
    case EHOSTDOWN: "EHOSTDOWN"
    case EADDRNOTAVAIL: "EADDRNOTAVAIL"
    case ENOTCONN: "ENOTCONN"
    case EBADF: "EBADF"
    case ENOBUFS: "ENOBUFS"
    case ENOMEM: "ENOMEM"
    case EMFILE: "EMFILE"
    case EACCES: "EACCES"
    default: "errno \(code)"
    }
}
