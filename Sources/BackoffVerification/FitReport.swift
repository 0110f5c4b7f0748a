public import LiveConnection

/// Every verdict on one set of delays against one claimed policy, with a table to print.
///
/// ```swift
/// let report = try BackoffFit.fit(observations, to: .fullJitter(base: .seconds(1), cap: .seconds(30)))
/// print(report.table())
/// #expect(report.accepted, "\(report)")
/// ```
///
/// The family-wise level is split over the rows (Bonferroni): each row is judged at
/// α/m, so the chance that a correct policy fails *any* row is at most α.
public struct FitReport: Sendable, CustomStringConvertible {
    /// The claimed policy.
    public var policy: BackoffPolicy
    /// The level for the whole report, before the Bonferroni split.
    public var familyAlpha: Double
    /// One verdict per check, in a fixed order.
    public var verdicts: [Verdict]
    /// The number of delays.
    public var sampleSize: Int
    /// The seed that drew the delays, if the kit drew them.
    public var seed: UInt64?

    /// A report (``BackoffFit`` builds them).
    public init(policy: BackoffPolicy, familyAlpha: Double, verdicts: [Verdict], sampleSize: Int, seed: UInt64?) {
        self.policy = policy
        self.familyAlpha = familyAlpha
        self.verdicts = verdicts
        self.sampleSize = sampleSize
        self.seed = seed
    }

    /// True when no row rejects.
    public var accepted: Bool { !verdicts.contains(where: \.rejected) }

    /// The verdicts that reject.
    public var rejections: [Verdict] { verdicts.filter(\.rejected) }

    /// A fixed-width table, one row per verdict.
    public func table() -> String {
        var lines: [String] = []
        let seedText = seed.map { ", seed \($0)" } ?? ""
        lines.append(
            "claim: \(policy)   n = \(sampleSize)\(seedText)   family α = \(familyAlpha.compact(significant: 3)) (Bonferroni over \(verdicts.count) rows)"
        )
        let header = ["test", "statistic", "p-value", "n", "verdict", "worst region"]
        var rows = [header]
        for verdict in verdicts {
            rows.append([
                verdict.test, "\(verdict.statisticName) = \(verdict.statistic.compact(significant: 4))",
                verdict.pValue.formattedPValue, "\(verdict.sampleSize)", verdict.rejected ? "REJECT" : "ok",
                verdict.worstRegion,
            ])
        }
        let widths = (0..<header.count - 1).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            var line = ""
            for column in 0..<header.count - 1 {
                line += row[column] + String(repeating: " ", count: widths[column] - row[column].count + 2)
            }
            lines.append(line + row[header.count - 1])
        }
        lines.append(
            accepted
                ? "verdict: consistent with the claim"
                : "verdict: REJECTED (\(rejections.map(\.test).joined(separator: "; ")))")
        return lines.joined(separator: "\n")
    }

    public var description: String { table() }
}
