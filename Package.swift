// swift-tools-version: 6.0
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "LiveConnection",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LiveConnection", targets: ["LiveConnection"]),
        .library(name: "LiveConnectionSimulator", targets: ["LiveConnectionSimulator"]),
        .library(name: "SimulationKernel", targets: ["SimulationKernel"]),
        .library(name: "LiveConnectionRules", targets: ["LiveConnectionRules"]),
        .library(name: "LiveConnectionTraces", targets: ["LiveConnectionTraces"]),
        .library(name: "LiveConnectionTesting", targets: ["LiveConnectionTesting"]),
        .executable(name: "livesim", targets: ["livesim"]),
        .library(name: "LivesimCLI", targets: ["LivesimCLI"]),
        .library(name: "LiveConnectionChecker", targets: ["LiveConnectionChecker"]),
        .library(name: "WebSocketTransport", targets: ["WebSocketTransport"]),
        .library(name: "LiveTestServer", targets: ["LiveTestServer"]),
        .library(name: "Statistics", targets: ["Statistics"]),
        .library(name: "BackoffVerification", targets: ["BackoffVerification"]),
        .library(name: "LiveConnectionWire", targets: ["LiveConnectionWire"]),
        .library(name: "WireHistory", targets: ["WireHistory"]),
    ],
    targets: [
        // The connection machine, the manager shell and the injection points.
        .target(name: "LiveConnection", swiftSettings: strict),
        // The command line (explore, replay, check, stats, connect, …) as a library with one entry,
        // `Livesim.main(arguments:clients:)`, so a user's package can run it with its own clients.
        .target(
            name: "LivesimCLI",
            dependencies: [
                "LiveConnection", "LiveConnectionSimulator", "Statistics", "BackoffVerification", "WebSocketTransport",
                "LiveConnectionChecker", "LiveTestServer", "LiveConnectionWire", "ExampleClients", "WireHistory",
            ],
            swiftSettings: strict),
        // `livesim`: the command line with the built-in clients (the manager and the three victims).
        .executableTarget(name: "livesim", dependencies: ["LivesimCLI"], swiftSettings: strict),
        // The command line's argument layer in-process (thousands of hostile vectors), a user's own
        // client through the entry, and the built binary as a user runs it (every command's process tests).
        .testTarget(
            name: "LivesimTests",
            dependencies: [
                "LivesimCLI", "LiveConnectionWire", "LiveConnectionSimulator", "LiveConnection", "PackageFiles",
                "TestScheduling",
            ],
            exclude: ["Peers"], swiftSettings: strict),
        .testTarget(
            name: "LiveConnectionTests",
            dependencies: [
                "LiveConnection", "LiveConnectionSimulator", "LiveServerContract", "PackageFiles", "BenchmarkSupport",
            ],
            swiftSettings: strict),
        // Tests' access to the package's own files (its root, docs, sources): one place that knows where they are.
        .target(name: "PackageFiles", path: "Tests/PackageFiles", swiftSettings: strict),
        // The `.computeBound` and `.waitsOnPeers` traits: long searches and simulations run on
        // threads of their own, and so do tests that block on processes and sockets, so neither
        // holds the cooperative pool nor waits behind it.
        .target(name: "TestScheduling", path: "Tests/TestScheduling", swiftSettings: strict),
        // The deterministic simulation kernel: virtual clock, seeded executor, scheduling strategies
        // (generic: it knows no connection; the core gives it only its seeded random stream).
        .target(name: "SimulationKernel", dependencies: ["LiveConnection"], swiftSettings: strict),
        // The one rule catalogue (`Rule`) and its specification, and the planted broken variants:
        // what every judge (simulator, checker, wire) names and is tested against.
        .target(name: "LiveConnectionRules", dependencies: ["LiveConnection"], swiftSettings: strict),
        // The trace format: scenarios and their actions as trace tokens, parsing and encoding,
        // delta debugging and schedule shrinking, the timeline picture (an SVG, escaped by Statistics'
        // SVGWriter, the package's one XML escaper).
        .target(
            name: "LiveConnectionTraces",
            dependencies: ["LiveConnection", "SimulationKernel", "LiveConnectionRules", "Statistics"],
            swiftSettings: strict),
        // The simulated world: network, faults, scenario generation, the invariants' monitor,
        // runs and exploration; re-exports the kernel, the rules and the traces.
        .target(
            name: "LiveConnectionSimulator",
            dependencies: [
                "LiveConnection", "LiveServerContract", "Statistics", "SimulationKernel", "LiveConnectionRules",
                "LiveConnectionTraces",
            ],
            swiftSettings: strict),
        // The live contract (subscribe, resume, sequence numbers, replay): one pure type that the
        // simulated server and the real test server both run.
        .target(name: "LiveServerContract", dependencies: ["LiveConnection"], swiftSettings: strict),
        // A real server's wire history: one JSON object a line, written as it happens, read back by the judge.
        .target(name: "WireHistory", dependencies: ["LiveConnection"], swiftSettings: strict),
        // The real test server and its tools: the live contract, every fault control on
        // WebSocketServer, the fault proxy (`livesim proxy`), the wire-history recorder, and the
        // admin HTTP endpoint they share (`livesim serve`).
        .target(
            name: "LiveTestServer", dependencies: ["LiveServerContract", "WebSocketTransport", "LiveConnection", "WireHistory"],
            swiftSettings: strict),
        .testTarget(
            name: "LiveConnectionSimulatorTests",
            dependencies: [
                "LiveConnectionSimulator", "LiveConnectionTraces", "LiveConnection", "LiveServerContract", "TestScheduling",
            ],
            swiftSettings: strict),
        // What every benchmark executable records about the machine it ran on.
        .target(name: "BenchmarkSupport", path: "Benchmarks/BenchmarkSupport", swiftSettings: strict),
        // Simulator throughput: simulated time per wall and CPU second, seeds/s, peak memory.
        .executableTarget(
            name: "SimulatorBenchmarks", dependencies: ["LiveConnectionSimulator", "LiveConnection", "BenchmarkSupport"],
            path: "Benchmarks/SimulatorBenchmarks", swiftSettings: strict),
        // Swift Testing glue: seeds as arguments, the simulation trait, replay of Traces/.
        .target(
            name: "LiveConnectionTesting",
            dependencies: ["LiveConnectionSimulator", "LiveConnection", "LiveConnectionWire"],
            swiftSettings: strict),
        .testTarget(
            name: "LiveConnectionTestingTests",
            dependencies: [
                "LiveConnectionTesting", "LiveConnectionSimulator", "LiveConnection", "LiveConnectionWire",
                "ExampleClients", "TestScheduling",
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "KernelBenchmarks", dependencies: ["LiveConnectionSimulator", "LiveConnection", "BenchmarkSupport"], path: "Benchmarks/KernelBenchmarks",
            swiftSettings: strict),
        // Backoff statistics: pure numerics, policy verification, the herd experiment.
        .target(name: "Statistics", swiftSettings: strict),
        .target(
            name: "BackoffVerification", dependencies: ["Statistics", "LiveConnection", "LiveConnectionSimulator"],
            swiftSettings: strict),
        .testTarget(
            name: "StatisticsTests", dependencies: ["Statistics", "LiveConnection", "TestScheduling"], exclude: ["Fixtures"],
            swiftSettings: strict),
        .testTarget(
            name: "BackoffVerificationTests",
            dependencies: [
                "BackoffVerification", "Statistics", "LiveConnection", "LiveConnectionSimulator", "PackageFiles",
                "TestScheduling",
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "StatisticsBenchmarks", dependencies: ["Statistics", "BackoffVerification", "LiveConnection", "BenchmarkSupport"],
            path: "Benchmarks/StatisticsBenchmarks", swiftSettings: strict),
        // The real transport: RFC 6455 over POSIX sockets, TLS through the system OpenSSL.
        .systemLibrary(
            name: "COpenSSL", pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),
        // permessage-deflate (RFC 7692) through the system zlib.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .target(
            name: "WebSocketTransport", dependencies: ["LiveConnection", "COpenSSL", "CZlib"], swiftSettings: strict),
        .testTarget(
            name: "WebSocketTransportTests",
            dependencies: [
                "WebSocketTransport", "LiveConnection", "LiveTestServer", "LiveServerContract", "LiveConnectionSimulator",
                "LiveConnectionTesting", "TestScheduling",
            ],
            exclude: ["Peers", "Fixtures"], swiftSettings: strict),
        .executableTarget(
            name: "TransportBenchmarks", dependencies: ["WebSocketTransport", "LiveConnection", "BenchmarkSupport"],
            path: "Benchmarks/TransportBenchmarks", exclude: ["python_echo_client.py", "python_raw_client.py"], swiftSettings: strict),
        // The model checker: exhaustive search of the connection machine and of users' models,
        // interleaving exploration of the async shell.
        .target(
            name: "LiveConnectionChecker",
            dependencies: [
                "LiveConnection", "SimulationKernel", "LiveConnectionRules", "LiveConnectionTraces", "LiveConnectionSimulator",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "LiveConnectionCheckerTests",
            dependencies: [
                "LiveConnectionChecker", "LiveConnection", "LiveConnectionSimulator", "LiveConnectionWire", "TestScheduling",
            ],
            swiftSettings: strict),
        // Any reconnecting client, judged from the wire: the client seam, the wire rules, the wire world.
        .target(
            name: "LiveConnectionWire",
            dependencies: [
                "LiveConnection", "SimulationKernel", "LiveConnectionRules", "LiveConnectionTraces", "LiveConnectionSimulator",
                "Statistics", "WireHistory",
            ],
            swiftSettings: strict),
        // Behavioural replicas of three reconnecting designs iOS guides teach, each with its flaws: the kit's victims.
        .target(name: "ExampleClients", dependencies: ["LiveConnection", "LiveConnectionWire"], swiftSettings: strict),
        .testTarget(
            name: "LiveConnectionWireTests",
            dependencies: ["LiveConnectionWire", "ExampleClients", "LiveConnectionSimulator", "LiveConnection", "TestScheduling", "WireHistory", "PackageFiles"],
            swiftSettings: strict),
        .executableTarget(
            name: "CheckerBenchmarks", dependencies: ["LiveConnectionChecker", "LiveConnection", "BenchmarkSupport"],
            path: "Benchmarks/CheckerBenchmarks", swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
