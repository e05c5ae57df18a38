// swift-tools-version: 6.0
import PackageDescription

/// Strict settings shared by every target: Swift 6 mode already implies complete concurrency checking.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "NAL",
    products: [
        .library(name: "NALLogging", targets: ["NALLogging"]),
        .library(name: "NALCore", targets: ["NALCore"]),
        .library(name: "NALMiddleware", targets: ["NALMiddleware"]),
        .library(name: "NALStubbing", targets: ["NALStubbing"]),
        .executable(name: "nal-cli", targets: ["nal-cli"]),
        .executable(name: "nal-bench", targets: ["nal-bench"]),
    ],
    targets: [
        .target(name: "NALLogging", swiftSettings: strictSettings),
        // Text and byte helpers with no NAL types (HTTP tokens, header lookup, form fields, SHA-256), shared by the
        // modules; not a product, so no user imports it.
        .target(name: "NALSupport", swiftSettings: strictSettings),
        // NAL's own declarations of the libcurl functions CurlTransport calls, and of zlib's inflate, resolved at run
        // time from the libcurl FoundationNetworking links and its zlib: no headers, no link step, nothing to
        // install. Not a product.
        .target(name: "CCurl"),
        .target(
            name: "NALCore",
            dependencies: ["NALLogging", "NALSupport", .target(name: "CCurl", condition: .when(platforms: [.linux]))],
            swiftSettings: strictSettings),
        .target(name: "NALMiddleware", dependencies: ["NALCore", "NALLogging", "NALSupport"], swiftSettings: strictSettings),
        .target(
            name: "NALStubbing",
            dependencies: [
                "NALCore", "NALLogging", "NALSupport", .target(name: "CCurl", condition: .when(platforms: [.linux])),
            ], swiftSettings: strictSettings),
        // The command line's commands, parsing and output: a library, so that tests and the fuzzer reach them.
        .target(
            name: "NALCommandLine",
            dependencies: ["NALCore", "NALLogging", "NALMiddleware", "NALStubbing", "NALSupport"],
            swiftSettings: strictSettings),
        .executableTarget(name: "nal-cli", dependencies: ["NALCommandLine"], swiftSettings: strictSettings),
        .target(name: "CMallocCounter", path: "Benchmarks/CMallocCounter"),
        .executableTarget(
            name: "nal-bench",
            dependencies: ["NALCore", "NALLogging", "NALMiddleware", "NALStubbing", "NALSupport", "CMallocCounter"],
            path: "Benchmarks/nal-bench",
            swiftSettings: strictSettings
        ),
        // The HTTP cache in the shape the public cache test suite measures: a reverse proxy (Conformance/README.md).
        .executableTarget(
            name: "nal-cache-proxy", dependencies: ["NALCore", "NALMiddleware", "NALStubbing"],
            path: "Conformance/nal-cache-proxy", swiftSettings: strictSettings),
        // Fuzz targets: the properties of every parser of untrusted text, run by libFuzzer (scripts/fuzz.sh) and
        // replayed on their corpora by NALFuzzTests.
        .target(
            name: "NALFuzzTargets",
            dependencies: ["NALCore", "NALMiddleware", "NALStubbing", "NALCommandLine", "NALSupport"],
            path: "Fuzz/Targets", swiftSettings: strictSettings),
        .target(name: "CFuzzerDriver", path: "Fuzz/CFuzzerDriver"),
        .executableTarget(
            name: "nal-fuzz", dependencies: ["NALFuzzTargets", "CFuzzerDriver"], path: "Fuzz/nal-fuzz",
            swiftSettings: strictSettings),
        // What tests observe of the process in C: the heap in use (Swift's Glibc lacks <malloc.h>), files fsync flushed.
        .target(name: "CTestProbes", path: "Tests/CTestProbes"),
        // Helpers shared by the test targets, which all run in one process.
        .target(
            name: "NALTestSupport", dependencies: ["NALCore", "NALLogging"], path: "Tests/NALTestSupport",
            swiftSettings: strictSettings),
        .testTarget(
            name: "NALLoggingTests", dependencies: ["NALLogging", "NALTestSupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "NALCoreTests", dependencies: ["NALCore", "NALLogging", "NALTestSupport", "CTestProbes"],
            swiftSettings: strictSettings),
        // Both executables run as processes in these tests, so a filtered build must rebuild both.
        .testTarget(
            name: "NALMiddlewareTests", dependencies: ["NALMiddleware", "NALCore", "NALLogging", "NALTestSupport"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "NALStubbingTests",
            dependencies: ["NALStubbing", "NALMiddleware", "NALCore", "NALLogging", "NALTestSupport"],
            // Read from the source tree by path (#filePath), as fixtures are; not bundled.
            exclude: ["Fixtures"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "NALFuzzTests", dependencies: ["NALFuzzTargets", "NALSupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "NALCLITests", dependencies: ["nal-cli", "nal-bench"], exclude: ["Golden"],
            swiftSettings: strictSettings),
    ],
    swiftLanguageModes: [.v6]
)
