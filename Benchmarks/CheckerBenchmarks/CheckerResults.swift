import BenchmarkSupport

/// `Benchmarks/results/checker.md`: one section per run kind (the connection model; the
/// model beside SPIN, one section per set of bounds); a run replaces its own section and
/// keeps the others as they were recorded.
let checkerResults = ResultsFile("checker.md", title: "# Checker benchmark")
