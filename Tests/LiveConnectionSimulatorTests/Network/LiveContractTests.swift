import Foundation
import LiveConnection
import LiveServerContract
import Testing

/// The live contract reads real JSON (any spacing, key order, escapes), answers what it
/// cannot obey, and records a bounded amount of what its clients send.
@Suite("The live contract: frames as JSON, refusals answered, records bounded")
struct LiveContractTests {
    @Test(
        "a subscribe works however a client spells its JSON",
        arguments: [
            #"{"type":"subscribe","topic":"feed"}"#,
            #"{"type": "subscribe", "topic": "feed"}"#,  // Python's json.dumps
            #"{ "topic" : "feed" , "type" : "subscribe" }"#,
            "\n\t{\"type\":\"subscribe\",\"topic\":\"f\\u0065ed\"}",
            #"{"type":"subscribe","topic":"feed","id":7}"#,
        ])
    func subscribeSpellings(_ text: String) {
        var server = LiveContract()
        #expect(server.handle(.text(text), from: 1) == .none)
        #expect(server.topics(of: 1) == ["feed"], "\(text)")
        let entry = server.append(topic: "feed", text: "hello")
        #expect(server.recipients(of: entry) == [1])
    }

    @Test("escaped topics and resume numbers are read as JSON means them")
    func escapesAndNumbers() {
        #expect(ContractFrame.read(#"{"type":"subscribe","topic":"a\"b\\c\u00e9"}"#) == .frame(.subscribe("a\"b\\cé")))
        #expect(ContractFrame.read(#"{"after": 41, "type": "resume"}"#) == .frame(.resume(41)))
        #expect(ContractFrame.read(#"{"type":"resume","after":18446744073709551615}"#) == .frame(.resume(.max)))
        #expect(ContractFrame.read(#"{"type":"resume","after":3.0}"#) == .frame(.resume(3)))
        #expect(ContractFrame.read(#"{"type":"unsubscribe","topic":"x"}"#) == .frame(.unsubscribe("x")))
    }

    @Test(
        "a contract frame without what it needs is refused with a reason, counted, and answered",
        arguments: [
            #"{"type":"resume","after":-1}"#, #"{"type":"resume","after":1.5}"#, #"{"type":"resume","after":"7"}"#,
            #"{"type":"resume","after":true}"#, #"{"type":"resume"}"#, #"{"type":"subscribe","topic":3}"#,
            #"{"type":"unsubscribe"}"#,
        ])
    func refused(_ text: String) throws {
        var server = LiveContract()
        guard case .refuse(let reason) = server.handle(.text(text), from: 1) else {
            Issue.record("\(text) was not refused")
            return
        }
        #expect(reason.contains("needs"), "\(reason)")
        #expect(server.refusedFrames == 1)
        #expect(server.commands.isEmpty, "a refused frame is not a command")
        // The answer is JSON a client can read: {"type":"error","reason":R}.
        let answer = try JSONSerialization.jsonObject(with: LiveContract.errorFrame(reason).data) as? [String: String]
        #expect(answer == ["type": "error", "reason": reason])
    }

    @Test("anything else is the app's command, recorded whole when short and by hash when long")
    func commands() {
        var server = LiveContract()
        for text in ["buy 10", #"{"type":"order","qty":3}"#, "[1,2]", "{not json"] {
            #expect(server.handle(.text(text), from: 2) == .none)
        }
        #expect(server.commands.map(\.text) == ["buy 10", #"{"type":"order","qty":3}"#, "[1,2]", "{not json"])
        let long = String(repeating: "x", count: 1 << 20)
        _ = server.handle(.text(long), from: 2)
        _ = server.handle(.text(long), from: 3)
        let recorded = server.commands.suffix(2).map(\.text)
        #expect(recorded[0] == recorded[1] && recorded[0].hasPrefix("<1048576 bytes, fnv1a 0x"))
    }

    @Test("the records keep their last entries and count every one, whatever clients send")
    func bounded() {
        var server = LiveContract()
        let sent = LiveContract.recordCapacity * 3 + 7
        for index in 0..<sent {
            _ = server.handle(.text("cmd-\(index)"), from: 1)
            _ = server.handle(.text(#"{"type":"subscribe","topic":"t\#(index)"}"#), from: 1)
        }
        #expect(server.commands.count == LiveContract.recordCapacity)
        #expect(server.commands.total == sent && server.commands.dropped == sent - LiveContract.recordCapacity)
        #expect(server.commands.first?.text == "cmd-\(sent - LiveContract.recordCapacity)")
        #expect(server.commands.last?.text == "cmd-\(sent - 1)")
        #expect(server.subscriptionLog.count == LiveContract.recordCapacity)
        // A reader that follows by position gets what is still kept from there on.
        #expect(server.commands.since(sent - 2).map(\.text) == ["cmd-\(sent - 2)", "cmd-\(sent - 1)"])
        #expect(server.commands.since(0).count == LiveContract.recordCapacity)
        #expect(server.commands.since(sent).isEmpty)
        // A connection's state goes with it.
        server.drop(1)
        #expect(server.topics(of: 1).isEmpty)
    }
}
