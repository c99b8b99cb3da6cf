// swift-tools-version:6.1
import PackageDescription

// Strict settings shared by every target: Swift 6 language mode is the package default;
// these upcoming features keep existential and import hygiene explicit.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "aasa-service",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "AASAModel", targets: ["AASAModel"]),
        .executable(name: "aasactl", targets: ["aasactl"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.0"),
    ],
    targets: [
        // Pure model: no Foundation, no NIO. Shared by the server and the CLI.
        .target(name: "AASAModel", swiftSettings: strict),
        .executableTarget(
            name: "aasactl",
            dependencies: [
                "AASAModel",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "aasa-bench-matcher",
            dependencies: ["AASAModel"],
            path: "Benchmarks/MatcherBenchmark",
            swiftSettings: strict
        ),
        .testTarget(
            name: "AASAModelTests",
            dependencies: [
                "AASAModel",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "aasactlTests",
            dependencies: ["aasactl", "AASAModel"],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
