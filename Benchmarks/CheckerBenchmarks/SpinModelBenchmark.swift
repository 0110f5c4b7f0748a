import BenchmarkSupport
import Foundation
import LiveConnectionChecker

/// `CheckerBenchmarks spin-model [--max-gen 60 --max-seq 60 --max-fail 8]`: SPIN and our
/// checker on the same model (`Benchmarks/spin/connection.pml` and ``SpinConnectionModel``)
/// at the same bounds, in one run; both must store the same number of distinct states.
/// Prints the comparison as its last line and records it in `Benchmarks/results/checker.md`.
enum SpinModelBenchmark {
    static let usage = "usage: CheckerBenchmarks spin-model [--max-gen 0…255] [--max-seq 0…255] [--max-fail 0…255]"

    static func run(_ arguments: [String]) throws {
        var bounds = ["--max-gen": 60, "--max-seq": 60, "--max-fail": 8]
        var words = arguments[...]
        while let flag = words.popFirst() {
            guard bounds[flag] != nil, let word = words.popFirst(), let value = Int(word) else {
                throw SpinRun.Failure(description: usage)
            }
            bounds[flag] = value
        }
        let model = try SpinConnectionModel(
            maxGeneration: bounds["--max-gen"]!, maxSequence: bounds["--max-seq"]!, maxFailures: bounds["--max-fail"]!)
        let boundsText = "MAXGEN \(model.maxGeneration), MAXSEQ \(model.maxSequence), MAXFAIL \(model.maxFailures)"
        let machine = BenchmarkMachine.current
        say("spin-model: \(boundsText); load \(machine.load)")

        var spin: SpinRun?
        if SpinRun.available {
            let pml = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("spin/connection.pml")
            let load = shell("cut -d' ' -f1-3 /proc/loadavg")
            let run = try SpinRun.run(
                model: pml, maxGeneration: model.maxGeneration, maxSequence: model.maxSequence,
                maxFailures: model.maxFailures)
            say(
                "SPIN (load before: \(load)): \(run.stored) states stored, \(run.transitions) transitions, "
                    + "\(format(run.seconds)) s, \(Int(run.rate)) states/s, state vector \(run.stateVector) B, "
                    + "\(format(run.stateBytes / Double(run.stored), 1)) B/state (states + hash table)")
            spin = run
            spin?.load = load
        } else {
            say("SPIN: not run (needs `spin` and `gcc`: apt-get install spin gcc)")
        }

        let threads = ProcessInfo.processInfo.activeProcessorCount
        let one = ours(model, threads: 1)
        let all = ours(model, threads: threads)
        guard one.statistics.distinctStates == all.statistics.distinctStates else {
            throw SpinRun.Failure(
                description: "ours stored \(one.statistics.distinctStates) states on one thread and "
                    + "\(all.statistics.distinctStates) on \(threads): the search is not deterministic")
        }
        let distinct = one.statistics.distinctStates
        if let spin, spin.stored != distinct {
            throw SpinRun.Failure(
                description: "SPIN stored \(spin.stored) states, ours \(distinct): the models differ")
        }
        let ourBytes = Double(one.statistics.memoryBytes) / Double(distinct)
        var line =
            "spin-model: \(distinct) distinct states; ours \(Int(one.rate)) states/s (1 thread), "
            + "\(Int(all.rate)) states/s (\(threads) threads); "
        if let spin {
            line +=
                "SPIN \(Int(spin.rate)) states/s; ratio \(format(one.rate / spin.rate)), \(format(all.rate / spin.rate)); "
                + "bytes/state ours \(format(ourBytes, 1)), SPIN \(format(spin.stateBytes / Double(spin.stored), 1))"
        } else {
            line += "SPIN not run; bytes/state ours \(format(ourBytes, 1))"
        }
        try checkerResults.write(
            section: "spin-model \(model.maxGeneration) \(model.maxSequence) \(model.maxFailures)",
            report(
                model: model, machine: machine, spin: spin, one: one, all: all, peak: peakResidentBytes(), line: line))
        say("recorded in \(checkerResults.path)")
        say(line)
    }

    struct Ours {
        var statistics: SearchStatistics
        var load: String
        var cpuSeconds: Double
        var rate: Double { Double(statistics.distinctStates) / statistics.seconds }
    }

    static func ours(_ model: SpinConnectionModel, threads: Int) -> Ours {
        let load = shell("cut -d' ' -f1-3 /proc/loadavg")
        var options = CheckOptions()
        options.threads = threads
        let cpuBefore = processCPUSeconds()
        let result = ModelChecker(model).run(options)
        let cpu = processCPUSeconds() - cpuBefore
        if let violation = result.violation {
            say("unexpected violation of \(violation.property): \(violation.message)")
            exit(1)
        }
        let ours = Ours(statistics: result.statistics, load: load, cpuSeconds: cpu)
        let s = ours.statistics
        say(
            "ours, \(threads) thread\(threads == 1 ? "" : "s") (load before: \(load)): \(s.distinctStates) distinct, "
                + "\(s.statesGenerated) generated, depth \(s.depthReached), \(format(s.seconds)) s, "
                + "\(Int(ours.rate)) states/s, \(format(Double(s.memoryBytes) / Double(s.distinctStates), 1)) B/state")
        return ours
    }

    static func report(
        model: SpinConnectionModel, machine: BenchmarkMachine, spin: SpinRun?, one: Ours, all: Ours, peak: Int,
        line: String
    ) -> String {
        var rows = [
            "| search | load before | distinct states | transitions | wall s | CPU s | states/s (wall) | per CPU s | bytes/state (visited set) | peak resident |",
            "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        if let spin {
            rows.append(
                "| SPIN 6.5.2 `pan -m10000000`, DFS, 1 thread | \(spin.load) | \(spin.stored) | \(spin.transitions) | "
                    + "\(format(spin.seconds)) | \(format(spin.cpuSeconds, 1)) | \(Int(spin.rate)) | "
                    + "\(Int(Double(spin.stored) / max(spin.cpuSeconds, 0.001))) | \(format(spin.stateBytes / Double(spin.stored), 1)) | "
                    + "\(spin.peakResidentBytes / 1_048_576) MiB |")
        }
        for (ours, threads) in [(one, 1), (all, all.statistics.threads)] {
            let s = ours.statistics
            rows.append(
                "| ours, BFS, \(threads) thread\(threads == 1 ? "" : "s") | \(ours.load) | \(s.distinctStates) | "
                    + "\(s.statesGenerated) | \(format(s.seconds)) | \(format(ours.cpuSeconds, 1)) | \(Int(ours.rate)) | "
                    + "\(Int(Double(s.distinctStates) / max(ours.cpuSeconds, 0.001))) | "
                    + "\(format(Double(s.memoryBytes) / Double(s.distinctStates), 1)) | \(peak / 1_048_576) MiB (both runs) |"
            )
        }
        return """
            ## The same model as SPIN: MAXGEN \(model.maxGeneration), MAXSEQ \(model.maxSequence), MAXFAIL \(model.maxFailures)

            \(machine.markdown.joined(separator: "\n"))
            - model: `Benchmarks/spin/connection.pml` (SPIN) and `SpinConnectionModel` (ours), \
            \(model.maxGeneration == 60 && model.maxSequence == 60 && model.maxFailures == 8 ? "the issue's bounds" : "bounds") \
            MAXGEN \(model.maxGeneration), MAXSEQ \(model.maxSequence), MAXFAIL \(model.maxFailures); \
            SPIN's state vector \(spin.map { "\($0.stateVector) B" } ?? "—"), ours 8 B
            - command: `swift build -c release --product CheckerBenchmarks && .build/release/CheckerBenchmarks \
            spin-model --max-gen \(model.maxGeneration) --max-seq \(model.maxSequence) --max-fail \(model.maxFailures)`

            \(rows.joined(separator: "\n"))

            - states/s is the wall-clock rate SPIN reports (and the last line compares); per CPU s \
            divides by the CPU time the search used, which other processes on this shared machine \
            do not inflate (SPIN's: pan's own user + system time, not the compilation).
            - SPIN's bytes/state: "actual memory usage for states" plus "memory used for hash table" \
            over the states stored (its total, with the DFS stack `-m` sizes, is \
            \(spin.map { format($0.totalBytes / Double($0.stored), 1) } ?? "—") B/state); ours: the state \
            column, parent index, emission ordinal and visited table at their capacity. SPIN's peak \
            resident is the largest child process's (pan, or gcc when pan is small).
            - ours checks `single` (the LTL claim `[] (live <= 1)`) and the process's assertion on \
            every state; SPIN checks the claim and the assertion.

            `\(line)`
            """
    }

    static func format(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }
}

/// Peak resident memory of this process so far.
func peakResidentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return kilobytes * 1024
    }
    return 0
}
