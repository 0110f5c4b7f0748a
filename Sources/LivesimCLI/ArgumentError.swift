/// A command-line mistake (exit 64, EX_USAGE), reported with the word that caused it and
/// what would be accepted instead. Words are quoted through ``clipped(_:)``: a message stays
/// one short line whatever the user typed.
enum ArgumentError: Error, CustomStringConvertible, Equatable {
    case missingValue(String)
    /// An option's value is not of the expected form: the option, the value, what is expected.
    case invalidValue(String, String, expected: String)
    /// A well-formed value outside the accepted range: the option, the value, the range.
    case outOfRange(String, String, range: String)
    case missingPositional(String)
    case unknownOption(String)
    case flagWithValue(String, String)
    case unexpected(String)
    /// Two options that cannot be combined, or a required one missing; the sentence says which.
    case conflict(String)

    var description: String {
        switch self {
        case .missingValue(let name): "\(name) needs a value"
        case .invalidValue(let name, let value, let expected):
            "invalid \(name) '\(clipped(value))': expected \(expected)"
        case .outOfRange(let name, let value, let range): "\(name) must be \(range) (got \(clipped(value)))"
        case .missingPositional(let label): "missing \(label)"
        case .unknownOption(let word): "unknown option '\(clipped(word))'"
        case .flagWithValue(let name, let word): "\(name) takes no value (got '\(clipped(word))')"
        case .unexpected(let word): "unexpected argument '\(clipped(word))'"
        case .conflict(let sentence): sentence
        }
    }
}

/// `text` cut to `limit` characters with a note of how much was left out, and with control
/// characters shown as `?` (a terminal must not interpret what a user pasted).
func clipped(_ text: some StringProtocol, to limit: Int = 80) -> String {
    let visible = text.prefix(limit).map { $0.isASCII && ($0.asciiValue! < 0x20 || $0.asciiValue! == 0x7F) ? "?" : $0 }
    let shown = String(visible)
    // Counting bytes, not characters: a 20 MB word must not cost a grapheme walk.
    return text.dropFirst(limit).isEmpty ? shown : shown + "… (\(text.utf8.count) bytes)"
}
