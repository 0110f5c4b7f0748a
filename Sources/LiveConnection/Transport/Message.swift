public import Foundation

/// A WebSocket data message: text or binary.
///
/// ```swift
/// try await manager.send(.text(#"{"op":"ping"}"#))
/// ```
public enum Message: Hashable, Sendable, CustomStringConvertible {
    case text(String)
    case binary(Data)

    /// The payload's bytes (UTF-8 for text).
    public var data: Data {
        switch self {
        case .text(let string): Data(string.utf8)
        case .binary(let data): data
        }
    }

    public var description: String {
        switch self {
        case .text(let string): "text \(string)"
        case .binary(let data): "binary \(data.count) bytes"
        }
    }
}
