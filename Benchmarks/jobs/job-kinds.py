#!/usr/bin/env python3
"""Counts the executor jobs a simulation runs, by what each job resumes.

Usage (root, with perf; a release build):
  python3 Benchmarks/jobs/job-kinds.py [--per N] -- .build/release/livesim replay Benchmarks/jobs/idle.trace --quiet
  python3 Benchmarks/jobs/job-kinds.py -- .build/release/livesim explore --seeds 0..20 --threads 1

Every job the simulator runs passes through the runtime's
`swift_job_run_on_task_executor(job, executor)`. A uprobe there reads the job's resume
function (the `ResumeTask` field of the runtime's `Job`, 56 bytes in on this toolchain:
Swift 6.3.1, Linux x86_64; the script refuses to report when most addresses resolve to
nothing, which is what a wrong offset looks like). The address is resolved to the symbol
that contains it: an `await resume` or `suspend resume` partial function of our code, or a
runtime entry (`ProcessOutOfLineJob::process` is a default actor's turn: a task hopping
onto the manager; the adapters start a child task or resume a group's waiter).

The count is exact (a probe per job, not a sample) and needs nothing from the code it
counts: the simulator is unchanged. `--per N` divides every count by N (e.g. the 144
heartbeats of an idle hour at P = 25 s).
"""
import bisect
import collections
import os
import re
import subprocess
import sys
import tempfile

CONCURRENCY = "/opt/swift/usr/lib/swift/linux/libswift_Concurrency.so"
RESUME_OFFSET = 56


def kind(symbol):
    """The job's kind, from the demangled symbol it resumes."""
    if "ProcessOutOfLineJob" in symbol:  # the default actor's job: it runs the tasks queued on the actor
        return "actor turn (a task hops onto an actor)"
    if "future_adapter" in symbol:  # non_future_adapter too
        return "task start (a child task's first job)"
    if "task_group_wait_resume_adapter" in symbol:
        return "group wait resumed (a child finished)"
    if "suspend resume partial function" in symbol:
        return "hop back (resumes after an isolation change)"
    if "VirtualClock.sleep" in symbol:
        return "clock wake (a sleeper due)"
    if "await resume partial function" in symbol:
        return "wake (a continuation resumed: mailbox, doorbell, signal)"
    return "other"


def short(symbol):
    symbol = re.sub(r"\((\d+)\) (await|suspend) resume partial function for ", r"\2 #\1 in ", symbol)
    for module in ("Swift.", "LiveConnection.", "LiveConnectionSimulator.", "SimulationKernel.", "LiveConnectionTraces."):
        symbol = symbol.replace(module, "")
    symbol = re.sub(r"generic (not re-abstracted )?specialization <([^>]*)> of ", r"<\2> ", symbol)
    symbol = re.sub(r"\(([^()]|\([^()]*\))*\)( async)?( throws)? -> [^ ]+", "(…)", symbol)
    return symbol[:120]


def symbols(path):
    out = subprocess.run(["nm", "--defined-only", path], capture_output=True, text=True, check=True).stdout
    table = []
    for line in out.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[1] in "tTwW":
            table.append((int(parts[0], 16), parts[2]))
    table.sort()
    return table


def main(argv):
    per = 1.0
    if "--" not in argv:
        sys.exit("usage: job-kinds.py [--per N] -- COMMAND ARGS...")
    split = argv.index("--")
    options, command = argv[:split], argv[split + 1:]
    if options[:1] == ["--per"] and len(options) == 2:
        per = float(options[1])
    elif options:
        sys.exit("usage: job-kinds.py [--per N] -- COMMAND ARGS...")
    if not command:
        sys.exit("job-kinds.py: no command after --")

    subprocess.run(["perf", "probe", "-q", "-d", "probe_libswift_Concurrency:jobkinds"], capture_output=True)
    subprocess.run(
        ["perf", "probe", "-q", "-x", CONCURRENCY, "--add",
         f"jobkinds=swift_job_run_on_task_executor resume=+{RESUME_OFFSET}(%di):x64"], check=True)
    with tempfile.TemporaryDirectory() as scratch:
        data = os.path.join(scratch, "perf.data")
        with open(os.devnull, "w") as null:
            subprocess.run(["perf", "record", "-q", "-e", "probe_libswift_Concurrency:jobkinds", "-o", data] + command,
                           stdout=null, stderr=null)
        script = subprocess.run(["perf", "script", "-i", data, "--show-mmap-events"],
                                capture_output=True, text=True).stdout
    subprocess.run(["perf", "probe", "-q", "-d", "probe_libswift_Concurrency:jobkinds"], capture_output=True)

    mappings, counts = {}, collections.Counter()
    executable = os.path.realpath(command[0])
    for line in script.splitlines():
        if "PERF_RECORD_MMAP2" in line and "r-xp" in line:
            found = re.search(r"\[(0x[0-9a-f]+)\((0x[0-9a-f]+)\) @ (0x[0-9a-f]+|0) .*r-xp (\S+)", line)
            if found and (os.path.realpath(found.group(4)) == executable or found.group(4) == CONCURRENCY):
                mappings[found.group(4)] = tuple(int(found.group(i), 16) for i in (1, 2, 3))
            continue
        found = re.search(r"resume=(0x[0-9a-f]+)", line)
        if found:
            counts[int(found.group(1), 16)] += 1
    tables = {path: symbols(path) for path in mappings}
    named = collections.Counter()
    for address, count in counts.items():
        name = "?"
        for path, (start, size, offset) in mappings.items():
            if start <= address < start + size:
                table = tables[path]
                index = bisect.bisect_right(table, (address - start + offset, "~")) - 1
                if index >= 0:
                    name = table[index][1]
        named[name] += count
    total = sum(named.values())
    if total == 0 or named["?"] > total / 2:
        sys.exit(f"job-kinds.py: {named['?']} of {total} jobs resolved to no symbol: the offset is not this runtime's")
    names = list(named)
    demangled = subprocess.run(["swift", "demangle", "--compact"], input="\n".join(names),
                               capture_output=True, text=True).stdout.splitlines()
    # The runtime's own entries are C++: `swift demangle` leaves them as they are.
    demangled = [subprocess.run(["c++filt", "-p", readable], capture_output=True, text=True).stdout.strip()
                 if readable.startswith("_Z") else readable for readable in demangled]
    by_kind, by_symbol = collections.Counter(), collections.Counter()
    for name, readable in zip(names, demangled):
        by_kind[kind(readable)] += named[name]
        by_symbol[(kind(readable), short(readable))] += named[name]

    unit = "jobs" if per == 1 else f"jobs per {per:g}"
    print(f"{total} jobs ({total / per:.2f} per {per:g})")
    print()
    print(f"| kind | {unit} | share |")
    print("| --- | --- | --- |")
    for name, count in by_kind.most_common():
        print(f"| {name} | {count / per:.2f} | {100 * count / total:.1f} % |")
    print()
    print(f"| kind | resumes | {unit} |")
    print("| --- | --- | --- |")
    for (name, symbol), count in by_symbol.most_common(25):
        print(f"| {name.split(' (')[0]} | `{symbol}` | {count / per:.2f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
