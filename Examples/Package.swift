// swift-tools-version: 6.0
// A package shaped like our users' own: it depends on LiveConnection by path and uses every
// library product that README.md and docs/ show, the way they show it. `.ci/run` builds it,
// runs its tests, and compiles every Swift snippet of the docs against its modules
// (`.ci/doc-snippets`), so a documented API that is not importable fails CI.
import PackageDescription

let package = Package(
    name: "LiveConnectionExamples",
    platforms: [.macOS(.v15)],
    dependencies: [
        // A user writes `.package(url: "https://…/LiveConnection.git", from: "…")`; the name
        // keeps `package: "LiveConnection"` below valid whatever this checkout's folder is called.
        .package(name: "LiveConnection", path: "..")
    ],
    targets: [
        // The example app: connects with WebSocketTransport, subscribes, prints events.
        .executableTarget(
            name: "live-feed",
            dependencies: [
                .product(name: "LiveConnection", package: "LiveConnection"),
                .product(name: "WebSocketTransport", package: "LiveConnection"),
            ],
            path: "Sources/LiveFeed"),
        // Your own reconnecting client (guide.md §10), in a library your tests and your livesim share.
        .target(
            name: "MyClients",
            dependencies: [
                .product(name: "LiveConnection", package: "LiveConnection"),
                .product(name: "LiveConnectionWire", package: "LiveConnection"),
            ]),
        // Your own livesim: the command line with your clients registered (docs/cli.md, "Your own clients").
        .executableTarget(
            name: "my-livesim",
            dependencies: ["MyClients", .product(name: "LivesimCLI", package: "LiveConnection")],
            path: "Sources/MyLivesim"),
        // Every other product, used as the docs use it.
        .testTarget(
            name: "ExamplesTests",
            dependencies: [
                "MyClients",
                .product(name: "LiveConnection", package: "LiveConnection"),
                .product(name: "LiveConnectionSimulator", package: "LiveConnection"),
                .product(name: "LiveConnectionTesting", package: "LiveConnection"),
                .product(name: "LiveConnectionChecker", package: "LiveConnection"),
                .product(name: "WebSocketTransport", package: "LiveConnection"),
                .product(name: "Statistics", package: "LiveConnection"),
                .product(name: "BackoffVerification", package: "LiveConnection"),
                .product(name: "LiveConnectionWire", package: "LiveConnection"),
                .product(name: "LiveTestServer", package: "LiveConnection"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
