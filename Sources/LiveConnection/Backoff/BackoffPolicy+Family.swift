extension BackoffPolicy {
    /// Which of the built-in formulas a policy is, without its parameters.
    ///
    /// ```swift
    /// BackoffPolicy.fullJitter().family          // .fullJitter
    /// BackoffPolicy.Family.allCases.count        // every formula the library ships
    /// ```
    ///
    /// `CaseIterable`, so a tool that must cover every formula (the simulator's swarm, a
    /// statistics table) can say so, and a test can fail when a new one is left out.
    public enum Family: String, CaseIterable, Hashable, Sendable, Comparable {
        case fullJitter = "full-jitter"
        case equalJitter = "equal-jitter"
        case decorrelatedJitter = "decorrelated-jitter"
        case proportionalJitter = "proportional-jitter"
        case exponential
        case table

        public static func < (lhs: Family, rhs: Family) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// The formula this policy uses.
    public var family: Family {
        switch kind {
        case .fullJitter: .fullJitter
        case .equalJitter: .equalJitter
        case .decorrelatedJitter: .decorrelatedJitter
        case .proportionalJitter: .proportionalJitter
        case .exponential: .exponential
        case .table: .table
        }
    }
}
