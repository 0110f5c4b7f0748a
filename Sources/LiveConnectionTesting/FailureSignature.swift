import Testing

/// How a test case failed, to tell whether a shrinking candidate fails *the same way*: the
/// source location of the first failed expectation, or the type of the error it threw.
/// Shrinking towards any failure at all slides to a different, shallower one (a
/// `#require` that fails because an action it needed was taken away, say).
enum FailureSignature: Hashable, Sendable {
    /// A failed `#expect`, `#require` or `Issue.record`, where it was written.
    case issue(SourceLocation?)
    /// An error the test threw, by type.
    case thrown(String)

    init(_ issue: Issue) { self = .issue(issue.sourceLocation) }

    init(_ error: any Error) { self = .thrown(String(reflecting: type(of: error))) }
}
