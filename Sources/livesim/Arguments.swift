/// A tiny command-line parser: `--name value`, `--name=value`, `--flag` and positionals.
///
/// ```swift
/// var arguments = Arguments(["--seeds", "0..<100", "trace.txt"])
/// let seeds = try arguments.option("--seeds", parse: SeedRange.init) ?? SeedRange(0..<1000)
/// let file = try arguments.positional("FILE")
/// try arguments.finish()   // rejects anything left over
/// ```
///
/// Hand-written because the package takes no dependencies; every bad input becomes an
/// ``ArgumentError`` with the offending word, and the command exits 64 (EX_USAGE).
struct Arguments {
    private var words: [String]

    init(_ words: [String]) { self.words = words }

    /// Removes and returns the value of `--name VALUE` or `--name=VALUE` (the last one wins).
    mutating func option(_ name: String) throws(ArgumentError) -> String? {
        var value: String?
        var index = 0
        while index < words.count {
            let word = words[index]
            if word == name {
                guard index + 1 < words.count else { throw .missingValue(name) }
                value = words[index + 1]
                words.removeSubrange(index...index + 1)
            } else if word.hasPrefix(name + "=") {
                value = String(word.dropFirst(name.count + 1))
                words.remove(at: index)
            } else {
                index += 1
            }
        }
        return value
    }

    /// Parses the value of an option; a value that does not parse is an error naming it.
    mutating func option<T>(_ name: String, parse: (String) -> T?) throws(ArgumentError) -> T? {
        guard let text = try option(name) else { return nil }
        guard let value = parse(text) else { throw .invalidValue(name, text) }
        return value
    }

    /// Removes every occurrence of a repeatable option, in order.
    mutating func options(_ name: String) throws(ArgumentError) -> [String] {
        var values: [String] = []
        while let value = try singleOccurrence(name) { values.append(value) }
        return values
    }

    private mutating func singleOccurrence(_ name: String) throws(ArgumentError) -> String? {
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

    /// Removes a boolean flag; true if it was present.
    mutating func flag(_ name: String) -> Bool {
        let before = words.count
        words.removeAll { $0 == name }
        return words.count != before
    }

    /// Removes and returns the next positional argument, if any.
    mutating func optionalPositional() -> String? {
        guard let index = words.firstIndex(where: { !$0.hasPrefix("--") }) else { return nil }
        return words.remove(at: index)
    }

    /// Removes and returns the next positional argument, which must be there.
    mutating func positional(_ label: String) throws(ArgumentError) -> String {
        guard let value = optionalPositional() else { throw .missingPositional(label) }
        return value
    }

    /// Fails if any argument was not consumed (a typo must not be silently ignored).
    func finish() throws(ArgumentError) {
        if let first = words.first { throw .unexpected(first) }
    }
}

/// A command-line mistake, reported with the word that caused it.
enum ArgumentError: Error, CustomStringConvertible {
    case missingValue(String)
    case invalidValue(String, String)
    case missingPositional(String)
    case unexpected(String)

    var description: String {
        switch self {
        case .missingValue(let name): "\(name) needs a value"
        case .invalidValue(let name, let value): "invalid value '\(value)' for \(name)"
        case .missingPositional(let label): "missing \(label)"
        case .unexpected(let word): "unexpected argument '\(word)'"
        }
    }
}
