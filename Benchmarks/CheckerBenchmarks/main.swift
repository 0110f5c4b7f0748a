// Checker benchmark: distinct states per second and bytes per state for the connection
// model, ours (packed states, indexed visited table, parallel levels) against a baseline
// breadth-first search over the same model with the standard library's Set and
// Dictionary, in the same run. Writes Benchmarks/results/checker.md.
//
//   swift run -c release CheckerBenchmarks [--topics N --commands N --log N] [--baseline-states N]
//   swift run -c release CheckerBenchmarks spin-model [--max-gen 60 --max-seq 60 --max-fail 8]
//
// The second mode times SPIN and ours on the same model (SpinModelBenchmark.swift).
import BenchmarkSupport
import Foundation
import LiveConnection
import LiveConnectionChecker

struct Figures {
    var label: String
    /// CPU seconds the process used during the run (all threads): with the wall time it
    /// tells a starved run (other processes on the cores) from real parallel overhead.
    var cpuSeconds = 0.0
    var distinct: Int
    var generated: Int
    var seconds: Double
    var bytes: Int
    var depth: Int
    var exhausted: Bool
    var rate: Double { Double(distinct) / seconds }
    var bytesPerState: Double { Double(bytes) / Double(distinct) }
}

/// The straightforward checker a first version would be: a FIFO queue, a
/// `Set<State>` of visited states and a `[State: State]` parent map.
func baseline(_ model: ConnectionModel, maxStates: Int) -> Figures {
    let start = ContinuousClock.now
    var memo = model.makeMemo()
    let initial = model.initialStates[0]
    var visited: Set<ConnectionModel.State> = [initial]
    var parents: [ConnectionModel.State: ConnectionModel.State] = [:]
    var queue = [initial]
    var head = 0
    var generated = 0
    var depthMarks = [0]
    while head < queue.count && visited.count < maxStates {
        if head == depthMarks.last! { depthMarks.append(queue.count) }
        let state = queue[head]
        head += 1
        model.expand(state, memo: &memo, where: nil) { _, _, next in
            generated += 1
            if visited.insert(next).inserted {
                parents[next] = state
                queue.append(next)
            }
        }
    }
    let seconds = (ContinuousClock.now - start).seconds
    // A native Set/Dictionary stores a bitmap word per 64 buckets plus the elements, at
    // most 3/4 full; count capacity, as ours counts capacity.
    let stateSize = MemoryLayout<ConnectionModel.State>.stride
    let bytes =
        visited.capacity * stateSize + parents.capacity * 2 * stateSize + queue.capacity * stateSize
        + (visited.capacity + parents.capacity) / 8
    return Figures(
        label: "baseline: Set + Dictionary parents, 1 thread", distinct: visited.count, generated: generated,
        seconds: seconds, bytes: bytes, depth: depthMarks.count - 1, exhausted: head == queue.count)
}

func ours(
    _ model: ConnectionModel, threads: Int, order: SearchOrder = .breadthFirst, maxStates: Int? = nil
) -> Figures {
    var options = CheckOptions()
    options.maxStates = maxStates
    options.threads = threads
    options.order = order
    options.checkEventually = false  // the baseline checks no properties either
    let result = model.check(options)
    if let violation = result.violation, violation.kind != .sometimes {
        say("unexpected violation: \(violation.property)")
        exit(1)
    }
    let s = result.statistics
    let label =
        order == .breadthFirst
        ? "ours: BFS, \(threads) thread\(threads == 1 ? "" : "s")" : "ours: DFS with 64-bit fingerprints, 1 thread"
    return Figures(
        label: label, distinct: s.distinctStates, generated: s.statesGenerated, seconds: s.seconds,
        bytes: s.memoryBytes,
        depth: s.depthReached, exhausted: s.exhausted)
}

/// User + system CPU seconds of the whole process so far.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

// MARK: Run

/// Writes a line at once (print is block-buffered into a file: a long run would show nothing).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

var words = Array(CommandLine.arguments.dropFirst())
if words.first == "spin-model" {
    do {
        try SpinModelBenchmark.run(Array(words.dropFirst()))
        exit(0)
    } catch {
        say("spin-model: \(error)")
        exit(error is SpinConnectionModel.BoundError || "\(error)".hasPrefix("usage") ? 64 : 1)
    }
}
@MainActor func option(_ name: String, _ fallback: Int) -> Int {
    guard let index = words.firstIndex(of: name), index + 1 < words.count, let value = Int(words[index + 1]) else {
        return fallback
    }
    words.removeSubrange(index...index + 1)
    return value
}
var bounds = ConnectionBounds()
bounds.topics = option("--topics", 3)
bounds.commands = option("--commands", 2)
bounds.serverLog = option("--log", 2)
let baselineStates = option("--baseline-states", 2_000_000)

let model: ConnectionModel
do {
    model = try ConnectionModel(bounds: bounds)
} catch {
    say("bad bounds: \(error)")
    exit(64)
}
let world =
    "topics \(bounds.topics), commands \(bounds.commands), server log \(bounds.serverLog), endpoints \(bounds.endpoints)"
say("connection model, \(world), MemoryLayout<State>.size = \(MemoryLayout<ConnectionModel.State>.size) B")

var rows: [Figures] = []
@MainActor func run(_ figures: @autoclosure () -> Figures) -> Figures {
    let load = shell("cut -d' ' -f1-3 /proc/loadavg")
    let cpuBefore = processCPUSeconds()
    var result = figures()
    result.cpuSeconds = processCPUSeconds() - cpuBefore
    result.label += " (load before: \(load))"
    say(
        "\(result.label): \(result.distinct) distinct, \(result.generated) generated, depth \(result.depth), "
            + "\(String(format: "%.2f", result.seconds)) s, \(Int(result.rate)) distinct/s, "
            + "\(String(format: "%.1f", result.bytesPerState)) B/state\(result.exhausted ? "" : " (stopped at the bound)")"
    )
    rows.append(result)
    return result
}
let two = run(ours(model, threads: 2))
let one = run(ours(model, threads: 1))
let dfs = run(ours(model, threads: 1, order: .depthFirst))
let naive = run(baseline(model, maxStates: baselineStates))
let sameBound = run(ours(model, threads: 1, maxStates: baselineStates))
let peak = peakResidentBytes()

// The baseline is compared with ours stopped at the same number of states: a small run
// misses the caches less, so comparing it with the full run would flatter it.
let speedup = two.rate / one.rate
let cpuRatio = two.cpuSeconds / one.cpuSeconds
let versusBaseline = sameBound.rate / naive.rate
say("speed-up 2 threads / 1 thread: \(String(format: "%.2f", speedup))×")
say(
    "ours (1 thread) / baseline, both stopped at \(baselineStates) states: \(String(format: "%.2f", versusBaseline))× "
        + "states/s, \(String(format: "%.2f", naive.bytesPerState / sameBound.bytesPerState))× less memory per state")

let date = ISO8601DateFormatter().string(from: Date())
let cpu = shell("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2")
var report = """
    ## The connection model

    - date: \(date)
    - system: \(shell("uname -srm")), nproc \(ProcessInfo.processInfo.activeProcessorCount), CPU \(cpu)
    - world: connection model, \(world); `MemoryLayout<ConnectionModel.State>.size` = \(MemoryLayout<ConnectionModel.State>.size) bytes
    - command: `swift run -c release CheckerBenchmarks --topics \(bounds.topics) --commands \(bounds.commands) --log \(bounds.serverLog)`
    - the machine is shared with other builds: wall-clock rates are lower bounds.

    | search | distinct states | generated | depth | wall s | CPU s | distinct states/s (wall) | per CPU s | bytes/state |
    | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |

    """
for row in rows {
    report +=
        "| \(row.label) | \(row.distinct)\(row.exhausted ? "" : " (bound)") | \(row.generated) | \(row.depth) | "
        + "\(String(format: "%.2f", row.seconds)) | \(String(format: "%.1f", row.cpuSeconds)) | \(Int(row.rate)) | "
        + "\(Int(Double(row.distinct) / max(row.cpuSeconds, 0.001))) | \(String(format: "%.1f", row.bytesPerState)) |\n"
}
report += """

    - speed-up, 2 threads over 1 (wall): **\(String(format: "%.2f", speedup))×**; the 2-thread run used \
    \(String(format: "%.2f", cpuRatio))× the CPU seconds of the 1-thread run (1.0 would be free parallelism; \
    a wall speed-up far below 2 with little extra CPU means the second core was busy with other processes)
    - ours (1 thread) over the baseline, both stopped at \(baselineStates) states: \
    \(String(format: "%.2f", versusBaseline))× the states/s, \
    \(String(format: "%.2f", naive.bytesPerState / sameBound.bytesPerState))× less memory per state
    - peak resident memory of the whole run: \(peak / 1_048_576) MiB
    - bytes/state counts the search's own structures at their capacity: the state column \
    (16 B), parent index (4 B), emission ordinal (2 B), all three in 2 MiB chunks (no doubling \
    slack), and the visited table (4 B a slot, 16 shards each at most 3/4 full: 5.3–10.7 B). \
    Not counted: each thread's cache of machine steps and a level's transient candidate \
    buffers (the peak resident figure above includes them). The baseline counts its Set, \
    Dictionary and queue at capacity the same way.
    - ours checks the 17 invariants and the `sometimes` properties on every state; the \
    bounded no-deadlock search (`eventually`) is off here (`livesim check` runs it too). \
    The baseline checks nothing.

    """
do {
    try checkerResults.write(section: "connection-model", report)
    say("wrote \(checkerResults.path)")
} catch {
    say("could not write \(checkerResults.path): \(error)")
    exit(1)
}
