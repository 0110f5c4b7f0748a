import Foundation
import Testing

@testable import LiveConnection

/// The parser-free reading of a message's `"seq"`: it answers only for the compact spelling,
/// and then exactly as `JSONSerialization` does (the reading it replaced on the hot path).
@Suite("CompactSequence")
struct CompactSequenceTests {
    /// What `SubscriptionProtocol.json` answered before the compact reading: the parser's.
    private func parsersAnswer(_ text: String) -> UInt64? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let number = object["seq"] as? NSNumber, number.int64Value >= 0
        else { return nil }
        return number.uint64Value
    }

    @Test(
        "the compact spelling is read as the parser reads it",
        arguments: [
            #"{"seq":42,"topic":"loans","text":"hi"}"#, #"{"seq":0}"#, #"{}"#, #"{"topic":"loans"}"#,
            #"{"topic":"a","seq":7,"text":"x"}"#, #"{"seq":1,"seq":2}"#, #"{"seq":123456789012345678}"#,
            #"{"seq":5,"text":"é ✓ \#u{7f}"}"#, #"{"a":1,"b":22,"seq":333}"#, #"{"seq":9,"":""}"#,
        ])
    func compact(_ text: String) throws {
        let reading = try #require(CompactSequence(text), "\(text) is in the compact grammar")
        let answer: UInt64? =
            switch reading {
            case .number(let number): number
            case .absent: nil
            }
        let expected = parsersAnswer(text)
        #expect(answer == expected, "\(text): compact \(reading), parser \(String(describing: expected))")
        #expect(SubscriptionProtocol.json.sequence(.text(text)) == expected)
    }

    @Test(
        "every other spelling, valid JSON or not, is left to the parser",
        arguments: [
            #"{ "seq": 42 }"#, #"{"seq":42 }"#, #"{"seq":"42"}"#, #"{"seq":042}"#, #"{"seq":-1}"#, #"{"seq":4.0}"#,
            #"{"seq":4e2}"#, #"{"seq":1234567890123456789}"#, #"{"seq":true}"#, #"{"seq":null}"#,
            #"{"seq":[1]}"#, #"{"seq":{"n":1}}"#, #"{"t\"x":1,"seq":3}"#, #"{"text":"a\nb","seq":3}"#,
            "{\"text\":\"a\u{1}b\",\"seq\":3}", #"{"seq":3"#, #"{"seq":3}x"#, #"{"seq":3,}"#, #"{,}"#, #"{"seq"}"#,
            #"{"seq":}"#, #"[{"seq":1}]"#, #" {"seq":1}"#, "", #"{"seq":1,"seq":"2"}"#, #"{"text":"abc}"#,
        ])
    func leftToTheParser(_ text: String) {
        #expect(CompactSequence(text) == nil, "\(text) is read by the parser")
        #expect(SubscriptionProtocol.json.sequence(.text(text)) == parsersAnswer(text))
    }

    @Test("random compact objects and their mutations agree with the parser")
    func randomSpellings() {
        var random = Xoshiro256StarStar(seed: 30)
        func pick(_ options: [String]) -> String { options[Int(random.next() % UInt64(options.count))] }
        let keys = [#""seq""#, #""topic""#, #""text""#, #""a""#, #""""#]
        let values = [
            "0", "7", "42", "123456789012345678", #""x""#, #""é ✓""#, #""""#, "007", "-3", "1.5", "true", "null",
            "1234567890123456789", #""a\"b""#, "[1]",
        ]
        let noise = [" ", ",", ":", "{", "}", "\"", "\\", "0", "e", "\u{1}"]
        var compact = 0
        for _ in 0..<20_000 {
            let members = (0..<Int(random.next() % 5)).map { _ in pick(keys) + ":" + pick(values) }
            var text = "{" + members.joined(separator: ",") + "}"
            if random.next() % 2 == 0 {
                // One mutation: a character of noise in, or a character out.
                var characters = Array(text)
                let at = Int(random.next() % UInt64(characters.count))
                if random.next() % 2 == 0 {
                    characters.insert(contentsOf: pick(noise), at: at)
                } else {
                    characters.remove(at: at)
                }
                text = String(characters)
            }
            #expect(SubscriptionProtocol.json.sequence(.text(text)) == parsersAnswer(text), "\(text)")
            if CompactSequence(text) != nil { compact += 1 }
        }
        #expect(compact > 1_000, "the random spellings reached the compact reading \(compact) times")
    }
}
