import LiveConnection
import Statistics

/// A ``DelayDistribution`` reduced to the three shapes the tests treat differently.
///
/// A uniform of zero width and a clamp whose cap sits below the range are points; a clamp
/// whose cap sits above the range is a plain uniform. What is left of a clamp has a
/// continuous part on [lower, cap) with density 1/(upper − lower) and an atom at the cap.
enum StatedShape: Equatable {
    case point(Int64)
    case uniform(lower: Int64, upper: Int64)
    case clamped(lower: Int64, upper: Int64, cap: Int64, massAtCap: Double)

    init(_ distribution: DelayDistribution) {
        switch distribution {
        case .constant(let value):
            self = .point(value.nanoseconds)
        case .uniform(let range):
            let lower = range.lowerBound.nanoseconds, upper = range.upperBound.nanoseconds
            self = upper > lower ? .uniform(lower: lower, upper: upper) : .point(lower)
        case .clampedUniform(let range, let cap):
            let lower = range.lowerBound.nanoseconds, upper = range.upperBound.nanoseconds, c = cap.nanoseconds
            if c <= lower || upper <= lower {
                self = .point(min(c, lower))
            } else if c >= upper {
                self = .uniform(lower: lower, upper: upper)
            } else {
                self = .clamped(lower: lower, upper: upper, cap: c, massAtCap: distribution.massAtCap)
            }
        }
    }

    /// The delay at conditional quantile `u` of the continuous part (for naming regions).
    func continuousQuantile(_ u: Double) -> Double {
        switch self {
        case .point(let value): Double(value) / 1e9
        case .uniform(let lower, let upper): (Double(lower) + u * Double(upper - lower)) / 1e9
        case .clamped(let lower, _, let cap, _): (Double(lower) + u * Double(cap - lower)) / 1e9
        }
    }

    /// The atom (a value drawn with positive probability) and its mass, if any.
    var atom: (value: Int64, mass: Double)? {
        switch self {
        case .point(let value): (value, 1)
        case .uniform: nil
        case .clamped(_, _, let cap, let mass): (cap, mass)
        }
    }

    /// Σ P(X = v)² over the continuous part at the given grain (K cells of equal chance).
    func continuousCollision(grain: Int64) -> Double {
        let g = Double(max(1, grain))
        switch self {
        case .point:
            return 0
        case .uniform(let lower, let upper):
            return min(1, g / (Double(upper - lower) + g))
        case .clamped(let lower, let upper, let cap, _):
            let width = Double(upper - lower)
            return min(1, g * Double(cap - lower) / (width * width))
        }
    }
}

/// Seconds as people read them: "2.08 s", "250 ms", "12 µs".
func secondsText(_ seconds: Double) -> String {
    let magnitude = abs(seconds)
    if magnitude >= 1 || magnitude == 0 { return "\(seconds.compact(significant: 4)) s" }
    if magnitude >= 1e-3 { return "\((seconds * 1e3).compact(significant: 4)) ms" }
    return "\((seconds * 1e6).compact(significant: 4)) µs"
}
