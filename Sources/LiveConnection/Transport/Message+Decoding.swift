public import Foundation

extension Message {
    /// Decodes a JSON message (text or binary) into `T`.
    ///
    /// ```swift
    /// struct Loan: Decodable { var seq: Int; var amount: Int }
    /// for await event in await manager.events() {
    ///     if case .message(let message, _) = event, let loan = try? message.decode(Loan.self) { … }
    /// }
    /// ```
    public func decode<T: Decodable>(_ type: T.Type, using decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decoder.decode(type, from: data)
    }
}

extension AsyncSequence where Element == ConnectionEvent {
    /// The messages of an event stream that decode as `T`, skipping phases, gaps and
    /// messages of other shapes.
    ///
    /// ```swift
    /// for await loan in await manager.events().decoded(Loan.self) { show(loan) }
    /// ```
    public func decoded<T: Decodable & Sendable>(
        _ type: T.Type, using decoder: JSONDecoder = JSONDecoder()
    ) -> AsyncCompactMapSequence<Self, T> {
        compactMap { event in
            guard case .message(let message, _) = event else { return nil }
            return try? message.decode(type, using: decoder)
        }
    }
}
