import Testing

@testable import Statistics

@Suite("χ², binomial, runs, autocorrelation and correlation against scipy")
struct ClassicalTestTests {
    @Test("χ² goodness of fit matches scipy.stats.chisquare when no merging is needed")
    func chiSquare() {
        for row in ReferenceFixture.rows("chisquare") {
            let observed = row.doubles("observed").map { Int($0) }
            let result = ChiSquareTest(observed: observed, expected: row.doubles("expected"))
            #expect(close(result.statistic, row.double("statistic"), relative: 1e-12))
            #expect(close(result.pValue, row.double("pvalue"), absolute: 1e-15, relative: 1e-9))
            #expect(result.degreesOfFreedom == observed.count - 1)
        }
    }

    @Test("χ² merges bins until each expects at least 5, and names the worst one")
    func chiSquareMerging() {
        let result = ChiSquareTest(
            observed: [1, 2, 9, 3, 1, 0, 20], expected: [2, 2, 8, 3, 2, 1, 18], edges: [0, 1, 2, 3, 4, 5, 6, 7])
        #expect(result.bins.allSatisfy { $0.expected >= 5 }, "\(result.bins)")
        #expect(result.bins.map(\.observed).reduce(0, +) == 36)
        #expect(result.degreesOfFreedom == result.bins.count - 1)
        #expect(result.bins.first?.lower == 0 && result.bins.last?.upper == 7)
    }

    @Test("the exact binomial test matches scipy.stats.binomtest")
    func binomial() {
        for row in ReferenceFixture.rows("binomial") {
            let result = BinomialTest(successes: row.int("k"), trials: row.int("n"), probability: row.double("p"))
            #expect(
                close(result.pValue, row.double("pvalue"), absolute: 1e-12, relative: 1e-8), "\(row): \(result.pValue)")
        }
    }

    @Test("the runs test matches the textbook formula computed independently in numpy")
    func runs() {
        for row in ReferenceFixture.rows("runs") {
            let result = RunsTest(sequence: row.doubles("sequence"))
            #expect(result.runs == row.int("runs"), "\(row["name"] ?? "")")
            #expect(close(result.z, row.double("z"), absolute: 1e-12))
            #expect(close(result.pValue, row.double("pvalue"), absolute: 1e-14, relative: 1e-10))
        }
    }

    @Test("lag-k autocorrelation matches numpy, and flags the trend and the alternation")
    func autocorrelation() {
        for row in ReferenceFixture.rows("autocorrelation") {
            let result = AutocorrelationTest(sequence: row.doubles("sequence"), lag: row.int("lag"))
            #expect(close(result.coefficient, row.double("r"), absolute: 1e-12))
            #expect(close(result.pValue, row.double("pvalue"), absolute: 1e-14, relative: 1e-10))
            let name = row["name"] as? String
            if row.int("lag") == 1 && (name == "trend" || name == "alternating") {
                #expect(result.pValue < 1e-6, "\(name ?? ""): \(result)")
            }
        }
    }

    @Test("Pearson correlation matches scipy.stats.pearsonr")
    func pearson() {
        for row in ReferenceFixture.rows("pearson") {
            let r = CrossCorrelationTest.pearson(row.doubles("x"), row.doubles("y"))
            #expect(close(r, row.double("r"), absolute: 1e-12))
        }
    }
}
