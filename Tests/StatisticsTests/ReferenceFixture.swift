import Foundation

/// The scipy reference values committed next to `Fixtures/make_fixtures.py`.
///
/// Read from the source tree (not a bundle resource) so that `swift test` needs neither
/// scipy nor resource processing; the path is relative to this file.
enum ReferenceFixture {
    static func root() -> [String: Any] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/reference.json")
        guard let data = try? Data(contentsOf: url),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { preconditionFailure("missing or unreadable fixture at \(url.path): run make_fixtures.py") }
        return object
    }

    /// The rows of one table in the fixture.
    static func rows(_ name: String) -> [[String: Any]] {
        guard let rows = root()[name] as? [[String: Any]] else { preconditionFailure("fixture has no table \(name)") }
        return rows
    }
}

extension Dictionary where Key == String, Value == Any {
    func double(_ key: String) -> Double {
        if let value = self[key] as? Double { return value }
        if let value = self[key] as? Int { return Double(value) }
        preconditionFailure("fixture row has no number \(key): \(self)")
    }

    func int(_ key: String) -> Int {
        if let value = self[key] as? Int { return value }
        if let value = self[key] as? Double, value == value.rounded() { return Int(value) }
        preconditionFailure("fixture row has no integer \(key): \(self)")
    }

    func doubles(_ key: String) -> [Double] {
        guard let array = self[key] as? [Any] else { preconditionFailure("fixture row has no list \(key)") }
        return array.map { ($0 as? Double) ?? Double(($0 as? Int) ?? 0) }
    }
}

/// |actual − expected| within an absolute or a relative tolerance, whichever is larger.
func close(_ actual: Double, _ expected: Double, absolute: Double = 0, relative: Double = 0) -> Bool {
    abs(actual - expected) <= max(absolute, relative * abs(expected))
}
