import LiveConnection
import LiveConnectionChecker
import TestScheduling
import Testing

@Suite("Boundary draws", .computeBound)
struct BoundaryRandomTests {
    static let ranges: [ClosedRange<Duration>] = [
        .zero ... .seconds(1), .zero ... .seconds(30), .milliseconds(500) ... .seconds(1),
        .nanoseconds(800_000_000) ... .nanoseconds(1_200_000_000), .zero ... .nanoseconds(2),
        .seconds(2) ... .seconds(6),
    ]

    @Test("lowest lands on the lower bound, highest on the upper, middle strictly inside", arguments: ranges)
    func boundaries(range: ClosedRange<Duration>) {
        var low = BoundaryRandom(.lowest), middle = BoundaryRandom(.middle), high = BoundaryRandom(.highest)
        #expect(low.duration(in: range) == range.lowerBound)
        #expect(high.duration(in: range) == range.upperBound)
        let inside = middle.duration(in: range)
        #expect(range.lowerBound < inside && inside < range.upperBound)
        // One word each: none of the three words is ever rejected.
        #expect(low.draws == 1 && middle.draws == 1 && high.draws == 1)
    }

    @Test("word 0 would be rejected by Lemire's method for these bounds, which is why lowest is 1", arguments: ranges)
    func zeroIsRejected(range: ClosedRange<Duration>) {
        let bound = UInt64(range.upperBound.nanoseconds - range.lowerBound.nanoseconds) + 1
        let threshold = (0 &- bound) % bound
        // Word 0 gives a low product of 0, rejected whenever the threshold is positive.
        #expect(threshold > 0 || bound.nonzeroBitCount == 1)
    }

    @Test(
        "every built-in policy's boundary draws stay within its stated bounds",
        arguments: [
            BackoffPolicy.fullJitter(), .equalJitter(), .decorrelatedJitter(), .proportionalJitter(), .exponential(),
            .table(),
        ])
    func policiesStayInBounds(policy: BackoffPolicy) {
        for failures in 0...8 {
            let bounds = policy.distribution(afterFailures: failures, previous: .seconds(2)).bounds
            for draw in BoundaryRandom.Draw.allCases {
                var random = BoundaryRandom(draw)
                let delay = policy.delay(afterFailures: failures, previous: .seconds(2), using: &random)
                #expect(bounds.contains(delay), "\(policy) after \(failures): \(delay) ∉ \(bounds)")
            }
        }
    }
}
