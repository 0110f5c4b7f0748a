import LiveConnectionSimulator

extension Command {
    /// `livesim diff A B`: where two traces (two runs, or a run and its re-run) part ways.
    static let diff = Command(
        name: "diff",
        summary: "show where two traces diverge (first differing line, with context)",
        usage: """
            usage: livesim diff A.trace B.trace [--context N]

            Compares two traces line by line and prints the first line that differs, with
            the N lines before it (default 3) that both share, its section (header,
            schedule, observed) and its virtual time. Both files must be valid traces.
            Exit status: 0 identical, 1 different or an error, 64 bad arguments.
            """,
        run: { arguments in
            let context = try arguments.option("--context") { Int($0).flatMap { $0 >= 0 ? $0 : nil } } ?? 3
            let left = try arguments.positional("A.trace")
            let right = try arguments.positional("B.trace")
            try arguments.finish()
            let a = try TraceFile(path: left)
            let b = try TraceFile(path: right)
            guard let divergence = TraceDivergence(between: a.text, and: b.text, context: context) else {
                print("identical: \(left) and \(right)")
                return 0
            }
            print(divergence.render(leftName: left, rightName: right))
            return 1
        })
}
