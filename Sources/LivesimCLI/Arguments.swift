/// The one argument layer every `livesim` command uses.
///
/// A command's `parse` reads its options first, then its positionals, then calls `finish()`,
/// and returns the work to run. **Adding an option is one line** there (and one line in the
/// command's usage text, which must quote the same range — `LivesimArgumentTests` checks it):
///
/// ```swift
/// let depth = try arguments.integer("--depth", in: 0...1_000_000)                  // Int?
/// let budget = try arguments.integer("--budget", in: 1...100_000, default: 2_000)   // Int
/// let wait = try arguments.duration("--timeout", in: .milliseconds(1)...(.seconds(3600)), default: .seconds(30))
/// let seeds = try arguments.seeds("--seeds", default: 0..<100)                      // refuses empty ranges
/// let strategy = try arguments.choice("--strategy", from: ["fifo", "random", "pct"])
/// let topics = try arguments.options("--topic")                                     // repeatable
/// let quiet = arguments.flag("--quiet")
/// let file = try arguments.positional("FILE")                                       // after every option
/// try arguments.finish()                                                            // rejects leftovers
/// ```
///
/// What every command gets from this layer: options before or after positionals, in any
/// order, as `--name VALUE` or `--name=VALUE`; `--` ends the options (later words are
/// positionals even if they start with `-`); `--help`/`-h` anywhere before `--` (handled in
/// ``Livesim``); every number range-checked with a message that names the range; one duration
/// syntax (``DurationSyntax``); one seed range syntax (``SeedRangeSyntax``); a bad word is an
/// ``ArgumentError`` (exit 64) quoting the word, clipped so a 20 MB argument stays one short line.
///
/// Hand-written because the package takes no dependencies.
struct Arguments {
    /// Words not consumed yet, before `--`.
    private var words: [String]
    /// Words after `--`: positionals only.
    private var afterTerminator: [String]

    init(_ arguments: [String]) {
        if let terminator = arguments.firstIndex(of: "--") {
            words = Array(arguments[..<terminator])
            afterTerminator = Array(arguments[(terminator + 1)...])
        } else {
            words = arguments
            afterTerminator = []
        }
    }

    /// True when `--help` or `-h` appears before `--`.
    var wantsHelp: Bool { words.contains { $0 == "--help" || $0 == "-h" } }

    /// Removes and returns the value of `--name VALUE` or `--name=VALUE`.
    /// Given twice, the last one wins (so a script can override an alias's default).
    mutating func option(_ name: String) throws(ArgumentError) -> String? {
        var value: String?
        while let next = try removeFirstOccurrence(of: name) { value = next }
        return value
    }

    /// Removes every occurrence of a repeatable option, in order.
    mutating func options(_ name: String) throws(ArgumentError) -> [String] {
        var values: [String] = []
        while let value = try removeFirstOccurrence(of: name) { values.append(value) }
        return values
    }

    /// Parses the value of an option; `parse` says why a value is wrong by throwing.
    mutating func option<T>(_ name: String, parse: (String) throws(ArgumentError) -> T) throws(ArgumentError) -> T? {
        guard let text = try option(name) else { return nil }
        return try parse(text)
    }

    /// Removes a boolean flag; true if it was present. `--flag=VALUE` is an error (a flag takes none).
    mutating func flag(_ name: String) throws(ArgumentError) -> Bool {
        if let word = words.first(where: { $0.hasPrefix(name + "=") }) { throw .flagWithValue(name, word) }
        let before = words.count
        words.removeAll { $0 == name }
        return words.count != before
    }

    /// Removes and returns the first word that names one of `choices` (a subcommand such as
    /// `stats herd`), wherever it is, so options may come before it.
    mutating func subcommand(_ label: String, from choices: [String]) throws(ArgumentError) -> String {
        if let index = words.firstIndex(where: choices.contains) { return words.remove(at: index) }
        let given = words.first { !Self.looksLikeOption($0) } ?? afterTerminator.first
        guard let given else { throw .missingPositional("\(label) (\(choices.joined(separator: ", ")))") }
        throw .invalidValue(label, given, expected: "one of " + choices.joined(separator: ", "))
    }

    /// Removes and returns the next positional argument, if any. Call it after every option
    /// was read: any option-like word still here is one the command does not know.
    mutating func optionalPositional() throws(ArgumentError) -> String? {
        try rejectUnknownOptions()
        if let index = words.firstIndex(where: { !Self.looksLikeOption($0) }) { return words.remove(at: index) }
        return afterTerminator.isEmpty ? nil : afterTerminator.removeFirst()
    }

    /// Removes and returns the next positional argument, which must be there.
    mutating func positional(_ label: String) throws(ArgumentError) -> String {
        guard let value = try optionalPositional() else { throw .missingPositional(label) }
        return value
    }

    /// Removes and returns every word after `--`: a command line to run (`torture`), whose own
    /// options are its business. Empty when there is no `--`.
    mutating func commandAfterTerminator() -> [String] {
        defer { afterTerminator = [] }
        return afterTerminator
    }

    /// Fails if any argument was not consumed (a typo must not be silently ignored).
    func finish() throws(ArgumentError) {
        try rejectUnknownOptions()
        if let first = words.first ?? afterTerminator.first { throw .unexpected(first) }
    }

    /// A word that is an option name: `-x`, `--name`, `--name=value`; not `-` (standard input)
    /// and not a negative number (a positional may be one).
    static func looksLikeOption(_ word: String) -> Bool {
        guard word.hasPrefix("-"), word.count > 1 else { return false }
        return !word.dropFirst().first!.isNumber && !word.hasPrefix("-.")
    }

    private func rejectUnknownOptions() throws(ArgumentError) {
        if let unknown = words.first(where: Self.looksLikeOption) {
            throw .unknownOption(String(unknown.prefix(while: { $0 != "=" })))
        }
    }

    private mutating func removeFirstOccurrence(of name: String) throws(ArgumentError) -> String? {
        guard let index = words.firstIndex(where: { $0 == name || $0.hasPrefix(name + "=") }) else { return nil }
        let word = words[index]
        if word == name {
            guard index + 1 < words.count else { throw .missingValue(name) }
            let value = words[index + 1]
            words.removeSubrange(index...index + 1)
            return value
        }
        words.remove(at: index)
        return String(word.dropFirst(name.count + 1))
    }
}
