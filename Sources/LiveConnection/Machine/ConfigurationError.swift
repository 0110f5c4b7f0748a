/// Why ``ConnectionConfiguration`` refused a setting; the configuration is left unchanged.
///
/// ```swift
/// var configuration = ConnectionConfiguration()
/// do { try configuration.limitAttempts(to: 0) } catch { print(error) }
/// // maximumAttempts 0 is out of range: at least 1, or nil for no limit
/// ```
public enum ConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The setting `name` was given `value`, outside `range`.
    case outOfRange(String, value: Int, range: String)

    public var description: String {
        switch self {
        case .outOfRange(let name, let value, let range): "\(name) \(value) is out of range: \(range)"
        }
    }
}
