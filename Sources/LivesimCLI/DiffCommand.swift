import LiveConnectionSimulator

extension Command {
    /// `livesim diff A B`: where two traces (two runs, or a run and its re-run) part ways.
    static let diff = Command(
        name: "diff",
        summary: "show where two traces diverge (first differing line, with context)",
        usage: """
            usage: livesim diff A.trace B.trace [--context N]

            Compares two traces line by line and prints the first line that differs, with
            the N lines before it that both share, its section (header, schedule, observed)
            and its virtual time. Both files must be valid traces.

              --context N   shared lines shown before the difference, 0 to 1000 (default 3)
            """,
        exitCodes: [0: "identical", 1: "different, or an error (unreadable or malformed trace)"],
        parse: { arguments throws(ArgumentError) in
            let context = try arguments.integer("--context", in: 0...1000, default: 3)
            let left = try arguments.positional("A.trace")
            let right = try arguments.positional("B.trace")
            try arguments.finish()
            return { try diffTraces(left, right, context: context) }
        })
}

private func diffTraces(_ left: String, _ right: String, context: Int) throws -> Int32 {
    let a = try TraceFile(path: left)
    let b = try TraceFile(path: right)
    guard let divergence = TraceDivergence(between: a.text, and: b.text, context: context) else {
        print("identical: \(left) and \(right)")
        return 0
    }
    print(divergence.render(leftName: left, rightName: right))
    return 1
}
