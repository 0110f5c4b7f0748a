/// The words of a trace line: bare words, quoted strings, `key=value` pairs, durations.
///
/// ```swift
/// TraceToken.word("loans")            // loans
/// TraceToken.word("token expired")    // "token expired"
/// try TraceToken.tokenize(#"close code=4001 reason="token expired""#)
/// // [close, code=4001, reason=token expired]
/// ```
///
/// Everything works on Unicode scalars, never on `Character`s: a grapheme cluster can
/// swallow a quote or a line break ("\r\n" is one `Character`; so is a quote followed by
/// a combining accent), and a parser that saw those would disagree with the encoder.
struct TraceToken: Hashable {
    /// The part before `=`, if the token was `key=value`.
    var key: String?
    /// The bare word or the unescaped contents of the quoted string.
    var value: String

    /// Scalars a bare word may contain when *writing*: anything else is quoted.
    static func isBareScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "_", ".", ":", "/", "@", "+", ",", "-", "(", ")": true
        default: false
        }
    }

    /// `text` as one token: bare when that reads back the same, quoted otherwise.
    static func word(_ text: String) -> String {
        if !text.isEmpty, text.unicodeScalars.allSatisfy(isBareScalar) { return text }
        return quoted(text)
    }

    /// `text` in double quotes, with `\\`, `\"`, `\n`, `\r`, `\t` and `\u{…}` escapes for
    /// every scalar that could break a line or hide in a terminal.
    ///
    /// The trace format's own quoting, which `tokenize` reads back. Not shared with
    /// `String.jsonQuoted` (JSON, the wire format) or `SVGWriter.escape` (XML): a trace escapes
    /// more (DEL, C1 controls, U+2028/2029, the byte-order mark, so a line reads safely in a
    /// terminal) and spells it `\u{…}`, which JSON does not accept; committed traces are
    /// written in this spelling, so it cannot change to JSON's.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if needsEscape(scalar) {
                    result += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }

    /// Control characters (C0, DEL, C1), line and paragraph separators, the byte-order mark.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0xFEFF: true
        default: false
        }
    }

    /// Splits one line (without its line break) into tokens separated by spaces.
    static func tokenize(_ line: String) throws(LineProblem) -> [TraceToken] {
        let scalars = Array(line.unicodeScalars)
        var tokens: [TraceToken] = []
        var index = 0
        while index < scalars.count {
            if scalars[index] == " " {
                index += 1
                continue
            }
            if scalars[index] == "\"" {
                tokens.append(TraceToken(key: nil, value: try readQuoted(scalars, at: &index)))
            } else {
                let run = readBare(scalars, at: &index)
                if index < scalars.count, scalars[index] == "=" {
                    index += 1
                    guard !run.isEmpty else { throw LineProblem("'=' without a name before it") }
                    let value: String
                    if index < scalars.count, scalars[index] == "\"" {
                        value = try readQuoted(scalars, at: &index)
                    } else {
                        value = readBare(scalars, at: &index)
                        guard !value.isEmpty else { throw LineProblem("'\(run)=' has no value") }
                    }
                    tokens.append(TraceToken(key: run, value: value))
                } else {
                    tokens.append(TraceToken(key: nil, value: run))
                }
            }
            if index < scalars.count, scalars[index] != " " {
                throw LineProblem("expected a space after a word, found '\(Character(scalars[index]))'")
            }
        }
        return tokens
    }

    /// A run of scalars up to a space, quote or `=`.
    private static func readBare(_ scalars: [Unicode.Scalar], at index: inout Int) -> String {
        var result = String.UnicodeScalarView()
        while index < scalars.count, scalars[index] != " ", scalars[index] != "\"", scalars[index] != "=" {
            result.append(scalars[index])
            index += 1
        }
        return String(result)
    }

    /// A quoted string starting at `index` (on the opening quote); leaves `index` after the closing one.
    private static func readQuoted(_ scalars: [Unicode.Scalar], at index: inout Int) throws(LineProblem) -> String {
        index += 1
        var result = String.UnicodeScalarView()
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            switch scalar {
            case "\"":
                return String(result)
            case "\\":
                guard index < scalars.count else { throw LineProblem("a backslash ends the line") }
                let escape = scalars[index]
                index += 1
                switch escape {
                case "\\": result.append("\\")
                case "\"": result.append("\"")
                case "n": result.append("\n")
                case "r": result.append("\r")
                case "t": result.append("\t")
                case "u": result.append(try readUnicodeEscape(scalars, at: &index))
                default: throw LineProblem("unknown escape '\\\(Character(escape))'")
                }
            default:
                result.append(scalar)
            }
        }
        throw LineProblem("a quoted string is not closed")
    }

    /// The `{HEX}` of a `\u{HEX}` escape.
    private static func readUnicodeEscape(_ scalars: [Unicode.Scalar], at index: inout Int) throws(LineProblem)
        -> Unicode.Scalar
    {
        guard index < scalars.count, scalars[index] == "{" else { throw LineProblem("'\\u' must be followed by '{'") }
        index += 1
        var digits = ""
        while index < scalars.count, scalars[index] != "}" {
            guard digits.count < 8 else { throw LineProblem("a '\\u{…}' escape is too long") }
            digits.unicodeScalars.append(scalars[index])
            index += 1
        }
        guard index < scalars.count else { throw LineProblem("a '\\u{' escape is not closed") }
        index += 1
        guard !digits.isEmpty, let value = UInt32(digits, radix: 16), let scalar = Unicode.Scalar(value) else {
            throw LineProblem("'\\u{\(digits)}' is not a Unicode scalar")
        }
        return scalar
    }

    // MARK: Durations

    /// Parses the spelling of `Duration.traceFormatted`: `1500ms`, `0.25ms`, `-3ms`
    /// (milliseconds with at most six decimals, so exact to the nanosecond).
    static func duration(_ text: String) throws(LineProblem) -> Duration {
        guard text.hasSuffix("ms") else { throw LineProblem("'\(text)' is not a duration (like 1500ms)") }
        var number = Substring(text.dropLast(2))
        let negative = number.hasPrefix("-")
        if negative { number = number.dropFirst() }
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let wholeText = parts[0]
        let fractionText = parts.count > 1 ? parts[1] : ""
        guard !wholeText.isEmpty, wholeText.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
            parts.count == 1 || (!fractionText.isEmpty && fractionText.count <= 6),
            fractionText.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
            let whole = Int64(wholeText)
        else { throw LineProblem("'\(text)' is not a duration (like 1500ms, or 0.25ms: at most six decimals)") }
        let fraction = Int64(fractionText + String(repeating: "0", count: 6 - fractionText.count)) ?? 0
        let (scaled, overflow) = whole.multipliedReportingOverflow(by: 1_000_000)
        let (nanos, overflow2) = scaled.addingReportingOverflow(fraction)
        guard !overflow, !overflow2 else { throw LineProblem("'\(text)' is too long a duration") }
        return .nanoseconds(negative ? -nanos : nanos)
    }
}

/// The tokens of one line, consumed in order: a small reader so every spelling checks
/// that nothing is missing and nothing is left over.
struct TraceFields {
    private var tokens: [TraceToken]
    private let context: String

    init(_ tokens: [TraceToken], context: String) {
        self.tokens = tokens
        self.context = context
    }

    /// The next token, which must be a bare word or a quoted string (not `key=value`).
    mutating func positional(_ label: String) throws(LineProblem) -> String {
        guard let first = tokens.first else { throw LineProblem("\(context) needs \(label)") }
        guard first.key == nil else { throw LineProblem("\(context) needs \(label) before '\(first.key ?? "")='") }
        tokens.removeFirst()
        return first.value
    }

    /// Every remaining positional token.
    mutating func remainingPositionals(_ label: String) throws(LineProblem) -> [String] {
        var values: [String] = []
        while !tokens.isEmpty { values.append(try positional(label)) }
        return values
    }

    /// The value of `key=…`, which must be the next token.
    mutating func keyed(_ key: String) throws(LineProblem) -> String {
        guard let first = tokens.first else { throw LineProblem("\(context) needs \(key)=…") }
        guard first.key == key else {
            throw LineProblem("\(context) expects \(key)=… here, found '\(first.key.map { "\($0)=" } ?? first.value)'")
        }
        tokens.removeFirst()
        return first.value
    }

    /// The value of `key=…` if it is the next token; nil (consuming nothing) otherwise.
    mutating func optionalKeyed(_ key: String) -> String? {
        guard let first = tokens.first, first.key == key else { return nil }
        tokens.removeFirst()
        return first.value
    }

    /// Fails if any token is left: a typo must not be silently ignored.
    func finish() throws(LineProblem) {
        if let extra = tokens.first {
            throw LineProblem("\(context) does not take '\(extra.key.map { "\($0)=" } ?? "")\(extra.value)'")
        }
    }
}

/// Number parsing with an error that names what was expected.
enum TraceNumber {
    static func integer<T: FixedWidthInteger>(_ text: String, _ what: String, as: T.Type = T.self) throws(LineProblem)
        -> T
    {
        guard text.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || $0 == 45 }), let value = T(text) else {
            throw LineProblem("'\(text)' is not \(what)")
        }
        return value
    }

    static func double(_ text: String, _ what: String) throws(LineProblem) -> Double {
        guard let value = Double(text), value.isFinite else { throw LineProblem("'\(text)' is not \(what)") }
        return value
    }

    static func bool(_ text: String, _ what: String) throws(LineProblem) -> Bool {
        switch text {
        case "true", "on": true
        case "false", "off": false
        default: throw LineProblem("'\(text)' is not \(what) (true or false)")
        }
    }
}
