// swift-tools-version: 6.1
//
// PeerBench: transport protocols head-to-head over an emulated peer-to-peer
// radio link. The target list mirrors the architecture (see docs/ARCHITECTURE.md):
// a core that knows no concrete transport, the link emulator, one module per
// transport plugin, and the `peerbench` executable that wires them together.
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "PeerBench",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "peerbench", targets: ["peerbench"]),
        .library(name: "PeerBenchPlugin", targets: ["PeerBenchPlugin"]),
        .library(name: "PeerBenchCore", targets: ["PeerBenchCore"]),
        .library(name: "PeerBenchAnalysis", targets: ["PeerBenchAnalysis"]),
        .library(name: "UWBRanging", targets: ["UWBRanging"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
    ],
    targets: [
        // Linux calls Swift's Glibc module does not expose (setns, TUN, TCP_INFO).
        .target(name: "CPeerBenchSystem"),
        // What transport plugins and testbeds build on: JSON, system calls, the plugin API,
        // stream framing, the link model and testbed protocols, the jitter/RTT statistics.
        .target(
            name: "PeerBenchPlugin",
            dependencies: [
                "CPeerBenchSystem",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            swiftSettings: strict
        ),
        // The run core: matrix, runner, records, journal. Knows no concrete transport.
        .target(
            name: "PeerBenchCore",
            dependencies: [
                "PeerBenchPlugin",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Compare, baseline and report over the records, with their statistics.
        .target(
            name: "PeerBenchAnalysis",
            dependencies: ["PeerBenchCore", "PeerBenchPlugin"],
            swiftSettings: strict
        ),
        // TUN ioctls, ppoll/eventfd/prctl wrappers and packet inspection for the emulator.
        .target(name: "CLinkEmulation"),
        // Network namespaces, TUN devices, the userspace emulator, the radio model.
        .target(
            name: "LinkEmulation",
            dependencies: [
                "PeerBenchPlugin",
                "CLinkEmulation",
                .product(name: "Collections", package: "swift-collections"),
            ],
            swiftSettings: strict
        ),
        // Throughput, timing and CPU figures of the link emulator (scripts/bench-link.sh).
        .executableTarget(
            name: "link-bench",
            dependencies: ["LinkEmulation", "PeerBenchPlugin"],
            path: "Benchmarks/LinkBench",
            swiftSettings: strict
        ),
        // Loopback figures of the QUIC plugin (scripts/bench-quic.sh).
        .executableTarget(
            name: "quic-bench",
            dependencies: ["QUICTransport", "PeerBenchPlugin"],
            path: "Benchmarks/QUICBench",
            swiftSettings: strict
        ),
        // Built-in transport plugins.
        .target(name: "TCPTransport", dependencies: ["PeerBenchPlugin"], swiftSettings: strict),
        .target(name: "UDPTransport", dependencies: ["PeerBenchPlugin", "CGnuTLS"], swiftSettings: strict),
        .systemLibrary(
            name: "CNgtcp2",
            pkgConfig: "libngtcp2",
            providers: [.apt(["libngtcp2-dev", "libngtcp2-crypto-gnutls-dev", "libgnutls28-dev"])]
        ),
        .target(
            name: "QUICTransport",
            dependencies: ["PeerBenchPlugin", "CNgtcp2", "GnuTLSSupport", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        .target(name: "UWBRanging", dependencies: ["PeerBenchPlugin"], swiftSettings: strict),
        // External plugins in any language (docs/protocol/exec.md).
        .target(name: "ExecTransport", dependencies: ["PeerBenchPlugin"], swiftSettings: strict),
        // GnuTLS's own system-library module, apart from CNgtcp2.
        .systemLibrary(name: "CGnuTLS", pkgConfig: "gnutls", providers: [.apt(["libgnutls28-dev"])]),
        // The one GnuTLS wrapper: sessions (always GNUTLS_NO_SIGNAL), credentials (certificate,
        // PSK), errors, X.509 for serve's identity; tls, quic and the control channel build on it.
        .target(name: "GnuTLSSupport", dependencies: ["CGnuTLS", "PeerBenchPlugin"], swiftSettings: strict),
        // TLS 1.3 over TCP.
        .target(name: "TLSTransport", dependencies: ["PeerBenchPlugin", "GnuTLSSupport"], swiftSettings: strict),
        // Two real hosts: the TLS-PSK control channel, `serve`, the remote testbed, link inspection, DNS-SD.
        .target(name: "RemoteLink", dependencies: ["PeerBenchPlugin", "GnuTLSSupport", "CPeerBenchSystem",
                                                   .product(name: "Logging", package: "swift-log")],
                swiftSettings: strict),
        // new-transport: new transport targets go above this line

        // `swift package new-transport NAME`: a thin command plugin driving the scaffold tool.
        .target(name: "TransportScaffold", swiftSettings: strict),
        .executableTarget(name: "peerbench-scaffold", dependencies: ["TransportScaffold"], swiftSettings: strict),
        .plugin(
            name: "NewTransport",
            capability: .command(
                intent: .custom(verb: "new-transport", description: "Create a transport plugin module, its test and its registration"),
                permissions: [.writeToPackageDirectory(reason: "adds Sources/<Name>Transport, Tests/<Name>TransportTests and edits Package.swift and RegisteredPlugins.swift")]
            ),
            dependencies: ["peerbench-scaffold"]
        ),

        // The command-line tool: fills the plugin registry and runs the CLI verbs.
        .executableTarget(
            name: "peerbench",
            dependencies: [
                "PeerBenchPlugin", "PeerBenchCore", "PeerBenchAnalysis", "LinkEmulation",
                "TCPTransport", "UDPTransport", "QUICTransport", "UWBRanging",
                "ExecTransport", "TLSTransport", "RemoteLink",
                // new-transport: new transport modules go above this line
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The misbehaving test plugin exists only in debug builds (the tests'), never in the release binary.
            swiftSettings: strict + [.define("PEERBENCH_TEST_PLUGINS", .when(configuration: .debug))]
        ),

        // Helpers the transport test targets share (loopback link model, runMatrix, timing).
        .target(name: "TransportTestSupport", dependencies: ["PeerBenchPlugin", "PeerBenchCore", .product(name: "Logging", package: "swift-log")],
                path: "Tests/TransportTestSupport"),
        .testTarget(name: "PeerBenchCoreTests", dependencies: ["PeerBenchPlugin", "PeerBenchCore", "PeerBenchAnalysis"]),
        .testTarget(name: "LinkEmulationTests", dependencies: ["LinkEmulation", "PeerBenchPlugin", "PeerBenchCore", "UDPTransport", "TCPTransport", "QUICTransport"]),
        .testTarget(name: "TCPTransportTests", dependencies: ["TransportTestSupport", "TCPTransport", "PeerBenchPlugin", "PeerBenchCore"]),
        .testTarget(name: "UDPTransportTests", dependencies: ["TransportTestSupport", "UDPTransport", "PeerBenchPlugin", "PeerBenchCore"]),
        .testTarget(name: "QUICTransportTests", dependencies: ["TransportTestSupport", "QUICTransport", "PeerBenchPlugin", "PeerBenchCore",
                                                             .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "UWBRangingTests", dependencies: ["TransportTestSupport", "UWBRanging", "PeerBenchPlugin", "PeerBenchCore"]),
        .testTarget(name: "PeerBenchCLITests", dependencies: ["peerbench", "TransportTestSupport"], exclude: ["Golden"]),
        .testTarget(name: "ExecTransportTests", dependencies: ["TransportTestSupport", "ExecTransport", "PeerBenchPlugin", "PeerBenchCore"]),
        .testTarget(name: "TLSTransportTests", dependencies: ["TransportTestSupport", "TLSTransport", "PeerBenchPlugin", "PeerBenchCore"]),
        .testTarget(name: "PluginContractTests", dependencies: [
            "TransportTestSupport", "PeerBenchPlugin", "PeerBenchCore", "TCPTransport", "UDPTransport", "TLSTransport", "QUICTransport", "UWBRanging", "ExecTransport",
        ], exclude: ["Peers"]),
        .testTarget(name: "RemoteLinkTests", dependencies: ["RemoteLink", "PeerBenchPlugin", "PeerBenchCore", "CPeerBenchSystem", "TransportTestSupport", "LinkEmulation",
                                                          "TLSTransport", "QUICTransport"]),
        .testTarget(name: "GnuTLSSupportTests", dependencies: ["GnuTLSSupport", "PeerBenchPlugin"]),
        // new-transport: new transport test targets go above this line
        .testTarget(name: "ScaffoldTests", dependencies: ["TransportScaffold"]),
    ]
)
