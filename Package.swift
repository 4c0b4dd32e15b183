// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Crossmate",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "CrossmateCore", targets: ["CrossmateCore"]),
        .library(name: "CrossmateFormats", targets: ["CrossmateFormats"]),
        .library(name: "CrossmateSync", targets: ["CrossmateSync"]),
        .executable(name: "crossmate", targets: ["crossmate"]),
        .executable(name: "crossmate-bench", targets: ["crossmate-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .target(name: "CrossmateCore"),
        .target(
            name: "CrossmateFormats",
            dependencies: ["CrossmateCore"],
            resources: [.copy("Bundled")]
        ),
        .target(name: "CrossmateSync", dependencies: ["CrossmateCore"]),
        .executableTarget(
            name: "crossmate-bench",
            dependencies: [
                "CrossmateCore", "CrossmateFormats", "CrossmateSync",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "crossmate",
            dependencies: [
                "CrossmateCore",
                "CrossmateFormats",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "CrossmateCoreTests", dependencies: ["CrossmateCore"]),
        .testTarget(name: "CrossmateSyncTests", dependencies: ["CrossmateCore", "CrossmateFormats", "CrossmateSync"]),
        .testTarget(
            name: "CrossmateFormatsTests",
            // The CLI tests run the real `crossmate` executable, so it is built with them.
            dependencies: ["CrossmateCore", "CrossmateFormats", "crossmate"],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
