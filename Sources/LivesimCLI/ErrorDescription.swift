import Foundation

/// A runtime error as one sentence a user can act on. Foundation's file errors become
/// "PATH: no such file" rather than "The operation could not be completed
/// (NSCocoaErrorDomain error 256)"; our own errors already describe themselves.
func describe(_ error: any Error) -> String {
    if let error = error as? CocoaError { return describe(fileError: error) }
    return String(describing: error)
}

private func describe(fileError error: CocoaError) -> String {
    let path = error.filePath ?? error.url?.path
    let reason: String
    if let posix = error.underlying as? POSIXError {
        reason = String(cString: strerror(posix.code.rawValue)).lowercased()
    } else if let underlying = error.underlying as NSError?, underlying.domain == NSPOSIXErrorDomain {
        reason = String(cString: strerror(Int32(underlying.code))).lowercased()
    } else {
        switch error.code {
        case .fileNoSuchFile, .fileReadNoSuchFile: reason = "no such file"
        case .fileReadNoPermission, .fileWriteNoPermission: reason = "permission denied"
        case .fileReadInapplicableStringEncoding, .fileReadCorruptFile: reason = "not UTF-8 text"
        case .fileWriteFileExists: reason = "the file already exists"
        case .fileWriteOutOfSpace: reason = "no space left on the device"
        case .fileWriteVolumeReadOnly: reason = "read-only file system"
        case .fileReadTooLarge: reason = "too large to read"
        default: reason = error.code.rawValue < 512 ? "cannot read it" : "cannot write it"
        }
    }
    return path.map { "\(clipped($0, to: 200)): \(reason)" } ?? reason
}
