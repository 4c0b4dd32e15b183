// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "Crossmate",
    // String(validating:as:) and Synchronization's Mutex need macOS 15 / iOS 18.
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "CrossmateCore", targets: ["CrossmateCore"]),
        .library(name: "CrossmateFormats", targets: ["CrossmateFormats"]),
        .library(name: "CrossmateSync", targets: ["CrossmateSync"]),
        .library(name: "CrossmateProtocol", targets: ["CrossmateProtocol"]),
        .library(name: "CrossmateClient", targets: ["CrossmateClient"]),
        .library(name: "CrossmateTerminal", targets: ["CrossmateTerminal"]),
        .executable(name: "crossmate", targets: ["crossmate"]),
        .executable(name: "crossmate-bench", targets: ["crossmate-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
    ],
    targets: [
        .target(name: "CrossmateCore"),
        .target(name: "CrossmateFormats", dependencies: ["CrossmateCore"]),
        .target(name: "CrossmateSync", dependencies: ["CrossmateCore"]),
        .target(name: "CrossmateProtocol", dependencies: ["CrossmateCore", "CrossmateSync"]),
        .target(
            name: "CrossmateStore",
            dependencies: [
                "CrossmateProtocol",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "CrossmateClient",
            dependencies: [
                "CrossmateCore", "CrossmateSync", "CrossmateProtocol", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .target(name: "CrossmateTerminal", dependencies: ["CrossmateCore", "CrossmateSync", "CrossmateProtocol", "CrossmateClient"]),
        .target(
            name: "CrossmateServer",
            dependencies: [
                "CrossmateCore", "CrossmateFormats", "CrossmateSync", "CrossmateProtocol", "CrossmateStore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            exclude: ["Web"]
        ),
        .executableTarget(
            name: "crossmate-bench",
            dependencies: [
                "CrossmateCore", "CrossmateFormats", "CrossmateSync", "CrossmateProtocol", "CrossmateServer", "CrossmateClient", "CrossmateTerminal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "crossmate",
            dependencies: [
                "CrossmateCore", "CrossmateFormats", "CrossmateServer", "CrossmateClient", "CrossmateProtocol", "CrossmateTerminal",
                "CrossmateStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "CrossmateCoreTests",
            // The solving-keys table loads bundled puzzles; the browser tests run the same table.
            dependencies: ["CrossmateCore", "CrossmateFormats"],
            resources: [.copy("Resources")]
        ),
        .testTarget(name: "CrossmateSyncTests", dependencies: ["CrossmateCore", "CrossmateFormats", "CrossmateSync"]),
        .testTarget(
            name: "CrossmateFormatsTests",
            // The CLI tests run the real `crossmate` executable, so it is built with them.
            dependencies: ["CrossmateCore", "CrossmateFormats", "CrossmateSync", "crossmate"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "CrossmateProtocolTests", dependencies: ["CrossmateProtocol"]),
        .testTarget(
            name: "CrossmateStoreTests",
            // SQLite's own calls, to read the database file without its write-ahead log.
            dependencies: ["CrossmateStore", "CrossmateTestSupport", .product(name: "GRDBSQLite", package: "GRDB.swift")]),
        // Helpers the test targets share: the real `crossmate serve` as a child process.
        .target(name: "CrossmateTestSupport", path: "Tests/CrossmateTestSupport"),
        .testTarget(
            name: "CrossmateClientTests",
            // The engine tests run against the real `crossmate serve`, so it is built with them.
            dependencies: [
                "CrossmateClient", "CrossmateFormats", "CrossmateSync", "CrossmateTestSupport", "crossmate",
            ]
        ),
        .testTarget(
            name: "CrossmateTerminalTests",
            // The terminal's pure parts (frames, keys, the play state) and the real `crossmate play`
            // driven in tmux, so the executable is built with them.
            dependencies: [
                "CrossmateClient", "CrossmateCore", "CrossmateFormats", "CrossmateProtocol", "CrossmateSync", "CrossmateTerminal",
                "CrossmateTestSupport", "crossmate", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            // Golden terminal frames, read from the source tree (CROSSMATE_UPDATE_GOLDEN=1 rewrites them).
            exclude: ["Frames"]
        ),
        .testTarget(
            name: "CrossmateServerTests",
            // The durability tests run the real `crossmate serve`, so it is built with them.
            dependencies: [
                "CrossmateServer", "CrossmateProtocol", "CrossmateFormats", "CrossmateSync", "CrossmateTestSupport", "crossmate",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            // A data directory made by an earlier release, read in place by UpgradeTests.
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The project's own targets build without warnings: any warning fails the build. Dependencies
// are left as they are.
for target in package.targets {
    target.swiftSettings = (target.swiftSettings ?? []) + [.treatAllWarnings(as: .error)]
}
