import Foundation

extension Double {
    /// Fixed-point text with `digits` decimals (deterministic: C's `%.*f`, no locale).
    public func formatted(digits: Int) -> String {
        String(format: "%.\(digits)f", self)
    }

    /// A p-value as people read them: 4 decimals, scientific below 10⁻⁴.
    public var formattedPValue: String {
        if self == 0 { return "0" }
        if self < 1e-4 { return String(format: "%.1e", self) }
        return String(format: "%.4f", self)
    }

    /// A compact number for chart ticks and tables (%g with `significant` digits).
    public func compact(significant: Int = 4) -> String {
        String(format: "%.\(significant)g", self)
    }
}
