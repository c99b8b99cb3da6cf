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
        // For the signed-file fuzzer (Fuzz/Package.swift), which builds it with -sanitize=fuzzer.
        .library(name: "AASASignedFile", targets: ["AASASignedFile"]),
        .executable(name: "aasactl", targets: ["aasactl"]),
        .executable(name: "aasad", targets: ["aasad"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird.git", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-openapi-generator.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.7.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.25.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.27.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        // Already in the graph through Hummingbird: its HTTP part types, for the served files'
        // channel handler.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.21.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.0.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.0.0"),
        // The iOS 8 signed (CMS) AASA form: BER with a bounded depth, and the signer's certificate.
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.10.0"),
        // OIDC ID tokens of CI jobs (issue 39): RS256/ES256 verified against the issuer's JWKS.
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
    ],
    targets: [
        // Pure model: no Foundation, no NIO. Shared by the server and the CLI.
        .target(name: "AASAModel", swiftSettings: strict),
        // The iOS 8 CMS-signed form of an AASA file, read by swift-asn1 and swift-certificates.
        .target(
            name: "AASASignedFile",
            dependencies: [
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "aasactl",
            dependencies: [
                // The API's answers read through the contract's own generated types.
                "AASAModel", "AASAAPI",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: strict
        ),
        // Generated from the top-level openapi.yaml (symlinked here): types and server stubs.
        .target(
            name: "AASAAPI",
            dependencies: [.product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            swiftSettings: strict,
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        // PostgreSQL: migrations, repositories, transactions. Speaks AASAModel, never HTTP.
        .target(
            name: "AASAStore",
            dependencies: [
                "AASAModel",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The core is four targets in a chain the compiler keeps (CoreBoundaryTests names the
        // allowed edges; README, "Layout"): none imports AASAAPI, Hummingbird, HTTPTypes or
        // OpenAPIRuntime, so the edge converts.
        //
        // The kernel: errors, support, the request's unit of work, auth, the audit's entry and actor,
        // and the read model's generation and principal cache.
        .target(
            name: "AASAKernel",
            dependencies: [
                "AASAModel", "AASAStore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        // The outbound client: every call to another server (Apple's and the origins' files, object
        // stores, Google's API, OIDC keys, webhook signatures), under one address policy and limits.
        .target(
            name: "AASAOutbound",
            dependencies: [
                "AASAKernel", "AASAModel", "AASAStore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ],
            swiftSettings: strict
        ),
        // The rules: documents, policies, grant coverage and expectations. They judge a change and
        // never write, and never call another server.
        .target(
            name: "AASARules",
            dependencies: [
                "AASAKernel", "AASAModel", "AASAStore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The services: changes, publishing, promotion, manifests, import, guardrails and the
        // periodic workers (probe, CDN and Google monitors, webhooks).
        .target(
            name: "AASAServices",
            dependencies: [
                "AASAKernel", "AASAOutbound", "AASARules", "AASAModel", "AASAStore", "AASASignedFile",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ],
            swiftSettings: strict
        ),
        // The HTTP edge as a library: API handlers, middleware, console, the served files'
        // handlers, configuration, metrics and buildApplication(config:), shared by aasad and the tests.
        .target(
            name: "AASAServer",
            dependencies: [
                "AASAKernel", "AASAOutbound", "AASARules", "AASAServices", "AASAModel", "AASAAPI", "AASAStore", "AASASignedFile",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                // Fetching as Apple's fetchers do (origin probe, CDN monitor).
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            resources: [.embedInCode("Console/Templates")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "aasad",
            dependencies: [
                "AASAServer", "AASAKernel", "AASAOutbound", "AASARules", "AASAServices", "AASAStore", "AASAModel",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "aasa-bench-publish",
            dependencies: [
                "AASAServer", "AASAKernel", "AASAOutbound", "AASARules", "AASAServices", "AASAStore", "AASAModel",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/PublishBenchmark",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "aasa-bench-passkeys",
            dependencies: [
                "AASAKernel", "AASAOutbound", "AASARules", "AASAServices", "AASAStore", "AASAModel",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/PasskeysBenchmark",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "aasa-bench-encoder",
            dependencies: [
                "AASAServer", "AASAKernel", "AASAOutbound", "AASARules", "AASAServices", "AASAModel", "AASAAPI",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            path: "Benchmarks/EncoderBenchmark",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "aasa-bench-bare",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird")],
            path: "Benchmarks/BareRoute",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "aasa-bench-model",
            dependencies: ["AASAModel"],
            path: "Benchmarks/ModelBenchmark",
            swiftSettings: strict
        ),
        .testTarget(
            name: "AASAModelTests",
            dependencies: [
                "AASAModel", "AASASignedFile",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: strict
        ),
        // The tests' real PostgreSQL: a migrated template database, one clone per test.
        .target(
            name: "AASATestSupport",
            dependencies: [
                "AASAStore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/TestSupport",
            swiftSettings: strict
        ),
        // The core's services called directly on PostgreSQL, no HTTP in between.
        .testTarget(
            name: "AASACoreTests",
            dependencies: [
                "AASAKernel", "AASAOutbound", "AASARules", "AASAServices", "AASAStore", "AASAModel", "AASATestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The rules layer alone: the gate and each policy on a template clone, no service, no HTTP.
        .testTarget(
            name: "AASARulesTests",
            dependencies: [
                "AASARules", "AASAKernel", "AASAStore", "AASAModel", "AASATestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AASAServerTests",
            dependencies: [
                "AASAServer", "AASAKernel", "AASAOutbound", "AASARules", "AASAServices", "AASAStore", "AASAModel", "AASASignedFile", "AASATestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "aasactlTests",
            dependencies: ["aasactl", "AASAModel", "AASATestSupport"],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Fuzzing only: scripts/fuzz sets AASA_FUZZ=1 and builds this with `--sanitize=fuzzer`, whose
// libFuzzer supplies `main`; an ordinary build never sees it.
if Context.environment["AASA_FUZZ"] == "1" {
    package.targets.append(
        .executableTarget(
            name: "aasa-fuzz-signed", dependencies: ["AASASignedFile"], path: "Fuzz/SignedFile", swiftSettings: strict))
}
