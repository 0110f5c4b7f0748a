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
    case EADDRINUSE: "EADDRINUSE"
    case EAFNOSUPPORT: "EAFNOSUPPORT"
    case EPROTONOSUPPORT: "EPROTONOSUPPORT"
    case EINVAL: "EINVAL"
    case EPERM: "EPERM"
    case ENFILE: "ENFILE"
    case EAGAIN: "EAGAIN"
    case EINTR: "EINTR"
    case EINPROGRESS: "EINPROGRESS"
    case EALREADY: "EALREADY"
    case EISCONN: "EISCONN"
    case ENOTSOCK: "ENOTSOCK"
    case EOPNOTSUPP: "EOPNOTSUPP"
    case EDESTADDRREQ: "EDESTADDRREQ"
    case EMSGSIZE: "EMSGSIZE"
    case ENETRESET: "ENETRESET"
    case ESHUTDOWN: "ESHUTDOWN"
    case EIO: "EIO"
    case ENOENT: "ENOENT"
    case ENOSPC: "ENOSPC"
    case EFAULT: "EFAULT"
    default: "errno \(code)"
    }
}

/// The errno's name and what it means, for an error a person reads at once rather than a
/// log line compared across platforms: "EADDRINUSE (address already in use)".
func errnoNameAndMeaning(_ code: Int32) -> String {
    "\(errnoName(code)) (\(String(cString: strerror(code)).lowercased()))"
}
