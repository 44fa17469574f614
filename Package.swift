// swift-tools-version: 6.1
//
// PeerBench: transport protocols head-to-head over an emulated peer-to-peer
// radio link. The target list mirrors the architecture (see docs/ARCHITECTURE.md):
// a core that knows no concrete transport, the link emulator, one module per
// transport plugin, and the `peerbench` executable that wires them together.
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
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
        // JSON: the one tokenizer (JSONTape), parser, writer, Codable bridge, paths and input errors.
        .target(name: "PeerBenchJSON", swiftSettings: strict),
        // The machine: system calls, sockets, addresses, clocks, threads, namespaces, CPU
        // accounting, the one seeded generator and the hex codec.
        .target(name: "PeerBenchSystem", dependencies: ["CPeerBenchSystem", "PeerBenchJSON"], swiftSettings: strict),
        // The plugin contract, and only it: TransportPlugin, the cell context, endpoints,
        // payloads, options, the measurement, the resolved link a cell runs over, the
        // workload and reconnect descriptions (docs/PLUGINS.md).
        .target(
            name: "PeerBenchPlugin",
            dependencies: [
                "PeerBenchJSON", "PeerBenchSystem",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // What a plugin's sockets share: a cell's socket scopes (deadline, cancellation, the
        // servers of one or more connections), stream connections, and the socket options
        // plugins set (TCP user timeout, congestion control, service class).
        .target(name: "PeerBenchSockets", dependencies: ["PeerBenchPlugin", "PeerBenchJSON", "PeerBenchSystem"], swiftSettings: strict),
        // The testbed contract between the run core and the links: the Testbed and LinkModel
        // protocols, the matrix specs a cell is resolved from (environment, distance,
        // scenario, trace, transport, workload list), the link's counters and the record's
        // link section, the energy model.
        .target(name: "PeerBenchTestbed", dependencies: ["PeerBenchPlugin", "PeerBenchJSON", "PeerBenchSystem"], swiftSettings: strict),
        // The workloads' measurements every transport shares: bulk series, pipelined probe times.
        .target(name: "PeerBenchWorkloads", dependencies: ["PeerBenchPlugin", "PeerBenchJSON", "PeerBenchSystem"], swiftSettings: strict),
        // Byte-stream transports' framing and workloads (tcp, tls, and the scaffold's plugin).
        .target(name: "PeerBenchStreams", dependencies: ["PeerBenchWorkloads", "PeerBenchPlugin", "PeerBenchSystem"], swiftSettings: strict),
        // The run core: matrix, runner, records, journal. Knows no concrete transport.
        .target(
            name: "PeerBenchCore",
            dependencies: [
                "PeerBenchJSON", "PeerBenchSystem", "PeerBenchPlugin", "PeerBenchSockets", "PeerBenchTestbed",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            swiftSettings: strict
        ),
        // Compare, baseline and report over the records, with their statistics.
        .target(
            name: "PeerBenchAnalysis",
            dependencies: ["PeerBenchJSON", "PeerBenchSystem", "PeerBenchCore", "PeerBenchPlugin"],
            swiftSettings: strict
        ),
        // TUN ioctls, ppoll/eventfd/prctl wrappers and packet inspection for the emulator.
        .target(name: "CLinkEmulation"),
        // Network namespaces, TUN devices, the userspace emulator, the radio model.
        .target(
            name: "LinkEmulation",
            dependencies: [
                "PeerBenchTestbed", "PeerBenchJSON", "PeerBenchSystem",
                "PeerBenchPlugin",
                "CLinkEmulation",
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: strict
        ),
        // Throughput, timing and CPU figures of the link emulator (scripts/bench-link.sh).
        .executableTarget(
            name: "link-bench",
            dependencies: ["PeerBenchJSON", "PeerBenchSystem", "LinkEmulation", "PeerBenchPlugin"],
            path: "Benchmarks/LinkBench",
            swiftSettings: strict
        ),
        // Loopback figures of the QUIC plugin (scripts/bench-quic.sh).
        .executableTarget(
            name: "quic-bench",
            dependencies: ["PeerBenchJSON", "PeerBenchSystem", "QUICTransport", "PeerBenchPlugin"],
            path: "Benchmarks/QUICBench",
            swiftSettings: strict
        ),
        // Built-in transport plugins.
        .target(
            name: "TCPTransport",
            dependencies: [
                "PeerBenchWorkloads", "PeerBenchSockets", "PeerBenchJSON", "PeerBenchSystem", "PeerBenchStreams", "CPeerBenchSystem",
                "PeerBenchPlugin",
            ], swiftSettings: strict),
        .target(
            name: "UDPTransport",
            dependencies: [
                "PeerBenchWorkloads", "PeerBenchSockets", "PeerBenchJSON", "PeerBenchSystem", "CPeerBenchSystem", "PeerBenchPlugin", "GnuTLSSupport",
            ], swiftSettings: strict),
        .systemLibrary(
            name: "CNgtcp2",
            pkgConfig: "libngtcp2",
            providers: [.apt(["libngtcp2-dev", "libngtcp2-crypto-gnutls-dev", "libgnutls28-dev"])]
        ),
        .target(
            name: "QUICTransport",
            dependencies: [
                "PeerBenchWorkloads", "PeerBenchSockets", "PeerBenchJSON", "PeerBenchSystem", "PeerBenchPlugin", "CNgtcp2", "GnuTLSSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "UWBRanging", dependencies: ["PeerBenchSockets", "PeerBenchJSON", "PeerBenchSystem", "PeerBenchPlugin"], swiftSettings: strict),
        // External plugins in any language (docs/protocol/exec.md).
        .target(name: "ExecTransport", dependencies: ["PeerBenchJSON", "PeerBenchSystem", "PeerBenchPlugin"], swiftSettings: strict),
        // GnuTLS's own system-library module, apart from CNgtcp2; only GnuTLSSupport imports it.
        .systemLibrary(name: "CGnuTLS", pkgConfig: "gnutls", providers: [.apt(["libgnutls28-dev"])]),
        // The one GnuTLS wrapper: sessions (always GNUTLS_NO_SIGNAL), credentials (certificate,
        // PSK), errors, X.509 for serve's identity, SHA-256, HMAC-SHA256, alert and certificate
        // status texts, the library version; tls, udp, quic and the control channel build on it.
        .target(name: "GnuTLSSupport", dependencies: ["PeerBenchJSON", "PeerBenchSystem", "CGnuTLS", "PeerBenchPlugin"], swiftSettings: strict),
        // TLS 1.3 over TCP.
        .target(
            name: "TLSTransport",
            dependencies: [
                "PeerBenchWorkloads", "PeerBenchSockets", "PeerBenchJSON", "PeerBenchSystem", "PeerBenchStreams", "CPeerBenchSystem",
                "PeerBenchPlugin", "GnuTLSSupport",
            ], swiftSettings: strict),
        // Two real hosts: the TLS-PSK control channel, `serve`, the remote testbed, link inspection, DNS-SD.
        .target(
            name: "RemoteLink",
            dependencies: [
                "PeerBenchTestbed", "PeerBenchJSON", "PeerBenchSystem", "PeerBenchPlugin", "GnuTLSSupport", "CPeerBenchSystem",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // new-transport: new transport targets go above this line

        // `swift package new-transport NAME`: a thin command plugin driving the scaffold tool.
        .target(name: "TransportScaffold", swiftSettings: strict),
        .executableTarget(name: "peerbench-scaffold", dependencies: ["TransportScaffold"], swiftSettings: strict),
        .plugin(
            name: "NewTransport",
            capability: .command(
                intent: .custom(verb: "new-transport", description: "Create a transport plugin module, its test and its registration"),
                permissions: [
                    .writeToPackageDirectory(
                        reason: "adds Sources/<Name>Transport, Tests/<Name>TransportTests and edits Package.swift and RegisteredPlugins.swift")
                ]
            ),
            dependencies: ["peerbench-scaffold"]
        ),

        // The command-line tool: fills the plugin registry and runs the CLI verbs.
        .executableTarget(
            name: "peerbench",
            dependencies: [
                "PeerBenchTestbed", "PeerBenchJSON", "PeerBenchSystem",
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
        .target(
            name: "TransportTestSupport",
            dependencies: [
                "PeerBenchTestbed", "PeerBenchJSON", "PeerBenchSystem", "PeerBenchStreams", "PeerBenchWorkloads", "PeerBenchPlugin", "PeerBenchCore",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/TransportTestSupport"),
        .testTarget(
            name: "PeerBenchCoreTests",
            dependencies: [
                "PeerBenchWorkloads", "UDPTransport", "PeerBenchSockets", "PeerBenchTestbed", "PeerBenchJSON", "PeerBenchSystem", "PeerBenchStreams",
                "PeerBenchPlugin", "PeerBenchCore", "PeerBenchAnalysis",
            ]),
        .testTarget(
            name: "LinkEmulationTests",
            dependencies: [
                "PeerBenchWorkloads", "PeerBenchTestbed", "PeerBenchJSON", "PeerBenchSystem", "LinkEmulation", "PeerBenchPlugin", "PeerBenchCore",
                "UDPTransport", "TCPTransport", "QUICTransport",
            ]),
        .testTarget(
            name: "TCPTransportTests",
            dependencies: [
                "PeerBenchWorkloads", "PeerBenchSockets", "PeerBenchJSON", "PeerBenchSystem", "PeerBenchStreams", "TransportTestSupport",
                "TCPTransport", "PeerBenchPlugin", "PeerBenchCore",
            ]),
        .testTarget(
            name: "UDPTransportTests",
            dependencies: [
                "PeerBenchTestbed", "PeerBenchWorkloads", "PeerBenchJSON", "PeerBenchSystem", "TransportTestSupport", "UDPTransport",
                "PeerBenchPlugin", "PeerBenchCore",
            ]),
        .testTarget(
            name: "QUICTransportTests",
            dependencies: [
                "PeerBenchWorkloads", "PeerBenchJSON", "PeerBenchSystem", "TransportTestSupport", "QUICTransport", "PeerBenchPlugin", "PeerBenchCore",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "UWBRangingTests",
            dependencies: ["PeerBenchJSON", "PeerBenchSystem", "TransportTestSupport", "UWBRanging", "PeerBenchPlugin", "PeerBenchCore"]),
        .testTarget(name: "PeerBenchCLITests", dependencies: ["peerbench", "TransportTestSupport"], exclude: ["Golden"]),
        .testTarget(
            name: "ExecTransportTests",
            dependencies: [
                "PeerBenchTestbed", "PeerBenchJSON", "PeerBenchSystem", "TransportTestSupport", "ExecTransport", "PeerBenchPlugin", "PeerBenchCore",
            ]),
        .testTarget(
            name: "TLSTransportTests",
            dependencies: [
                "PeerBenchWorkloads", "PeerBenchJSON", "PeerBenchSystem", "TransportTestSupport", "TLSTransport", "PeerBenchPlugin", "PeerBenchCore",
            ]),
        .testTarget(
            name: "PluginContractTests",
            dependencies: [
                "TransportTestSupport", "PeerBenchPlugin", "PeerBenchCore", "TCPTransport", "UDPTransport", "TLSTransport", "QUICTransport",
                "UWBRanging", "ExecTransport",
            ], exclude: ["Peers"]),
        .testTarget(
            name: "RemoteLinkTests",
            dependencies: [
                "PeerBenchSockets", "PeerBenchTestbed", "PeerBenchJSON", "PeerBenchSystem", "RemoteLink", "PeerBenchPlugin", "PeerBenchCore",
                "CPeerBenchSystem", "TransportTestSupport", "LinkEmulation",
                "TLSTransport", "QUICTransport",
            ]),
        .testTarget(name: "GnuTLSSupportTests", dependencies: ["PeerBenchSystem", "GnuTLSSupport", "PeerBenchPlugin"]),
        // new-transport: new transport test targets go above this line
        .testTarget(name: "ScaffoldTests", dependencies: ["TransportScaffold"]),
    ]
)
