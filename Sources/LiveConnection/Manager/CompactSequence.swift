/// The resume sequence number of a message spelled as a flat, compact JSON object, read
/// without a JSON parser; `nil` (no answer) for any other spelling, which then goes to
/// `JSONSerialization`.
///
/// ```swift
/// CompactSequence(#"{"seq":42,"topic":"loans","text":"hi"}"#)   // .number(42)
/// CompactSequence(#"{"topic":"loans"}"#)                         // .absent: no "seq"
/// CompactSequence(#"{ "seq": 42 }"#)                             // nil: spaces, ask the parser
/// ```
///
/// Why: ``SubscriptionProtocol/json`` reads every incoming message for its `"seq"`, and
/// `JSONSerialization` (a parse into `NSDictionary` and `NSNumber`) was 2 % of the
/// simulator's CPU (docs/benchmarks.md). Servers (our simulated one, the test server) write
/// `{"seq":N,"topic":T,"text":X}` with no spaces; this reads exactly that family and gives
/// the parser's own answer for it.
///
/// What it reads, and nothing else: `{`, then members `"key":value` separated by `,`, then
/// `}` and the end of the text, no whitespace anywhere; keys and string values without a
/// backslash or a control character (so every such string is valid JSON as it stands);
/// numbers as unsigned integers of at most 18 digits without a leading zero (so they fit
/// an `Int64` exactly, as `NSNumber` holds them). A key given twice counts with its last
/// value, as for the parser. A `"seq"` that is a string is not read (the parser's answer
/// would depend on bridging). Anything outside this
/// grammar, valid JSON or not, is left to the parser, so the answer never differs from it;
/// `CompactSequenceTests` checks that against `JSONSerialization` on spellings in and out
/// of the grammar.
enum CompactSequence: Equatable {
    /// The object has a `"seq"` that is this whole number.
    case number(UInt64)
    /// The object has no `"seq"`.
    case absent

    init?(_ text: String) {
        var text = text
        guard let reading = text.withUTF8({ Self.read($0) }) else { return nil }
        self = reading
    }

    private static func read(_ bytes: UnsafeBufferPointer<UInt8>) -> CompactSequence? {
        let quote = UInt8(ascii: "\"")
        var index = 0
        var sequence: UInt64?
        func byte(_ at: Int) -> UInt8? { at < bytes.count ? bytes[at] : nil }
        /// The bytes between a string's quotes, if `index` is at a string the grammar reads.
        func string() -> Range<Int>? {
            guard byte(index) == quote else { return nil }
            let start = index + 1
            var end = start
            while let b = byte(end), b != quote {
                guard b != UInt8(ascii: "\\"), b >= 0x20 else { return nil }
                end += 1
            }
            guard end < bytes.count else { return nil }
            index = end + 1
            return start..<end
        }

        guard byte(0) == UInt8(ascii: "{") else { return nil }
        index = 1
        if byte(index) != UInt8(ascii: "}") {
            while true {
                guard let key = string(), byte(index) == UInt8(ascii: ":") else { return nil }
                index += 1
                let isSequence =
                    key.count == 3 && bytes[key.lowerBound] == UInt8(ascii: "s")
                    && bytes[key.lowerBound + 1] == UInt8(ascii: "e") && bytes[key.lowerBound + 2] == UInt8(ascii: "q")
                if byte(index) == quote {
                    guard !isSequence, string() != nil else { return nil }
                } else {
                    guard let number = unsignedInteger(bytes, at: &index) else { return nil }
                    if isSequence { sequence = number }  // a key twice: the last one counts, as for the parser
                }
                guard let separator = byte(index) else { return nil }
                index += 1
                if separator == UInt8(ascii: "}") { break }
                guard separator == UInt8(ascii: ",") else { return nil }
            }
        } else {
            index += 1
        }
        guard index == bytes.count else { return nil }
        return sequence.map { .number($0) } ?? .absent
    }

    /// An unsigned integer of 1 to 18 digits without a leading zero (or `0` alone). The caller
    /// wants `,` or `}` next, so a fraction or an exponent leaves the text to the parser.
    private static func unsignedInteger(_ bytes: UnsafeBufferPointer<UInt8>, at index: inout Int) -> UInt64? {
        let zero = UInt8(ascii: "0")
        let start = index
        var value: UInt64 = 0
        while index < bytes.count, bytes[index] >= zero, bytes[index] <= UInt8(ascii: "9") {
            value = value * 10 + UInt64(bytes[index] - zero)
            index += 1
            guard index - start <= 18 else { return nil }
        }
        let digits = index - start
        guard digits > 0, digits == 1 || bytes[start] != zero else { return nil }
        return value
    }
}
