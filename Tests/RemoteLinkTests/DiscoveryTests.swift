import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import Testing

@testable import RemoteLink

/// An avahi-daemon of its own inside a network namespace: its own D-Bus system bus
/// (a socket under a temporary folder) and, in a private mount namespace, its own /run
/// (avahi-daemon allows one instance per /run/avahi-daemon). Two of them on the two
/// ends of a veth pair are two hosts on one link, as far as mDNS can tell.
final class AvahiInNamespace: @unchecked Sendable {
    let namespace: NetworkNamespace
    let folder: String
    private let process: Process
    var systemBus: String { "unix:path=\(folder)/bus" }

    init(namespace: NetworkNamespace) throws {
        self.namespace = namespace
        folder = "/tmp/\(namespace.name)-avahi"
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o755])
        let script = """
            mount -t tmpfs tmpfs /run && mkdir -p /run/avahi-daemon /run/dbus || exit 1
            trap 'kill $A $D 2>/dev/null; wait; exit 0' TERM INT
            dbus-daemon --system --nopidfile --nofork --address=unix:path=\(folder)/bus & D=$!
            i=0; while [ ! -S \(folder)/bus ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
            DBUS_SYSTEM_BUS_ADDRESS=unix:path=\(folder)/bus avahi-daemon --no-chroot --no-rlimits & A=$!
            wait
            """
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = ["netns", "exec", namespace.name, "unshare", "-m", "--propagation", "private", "sh", "-c", script]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Ready when the daemon registers a service (and withdraws it again).
        let deadline = Date().addingTimeInterval(20)
        while true {
            do {
                try Discovery.advertise(name: "pbl-ready", port: 9, systemBus: systemBus, timeoutSeconds: 2).stop()
                return
            } catch {
                if Date() > deadline {
                    stop()
                    throw error
                }
                usleep(100_000)
            }
        }
    }

    /// Stops both daemons (the shell's trap) and waits for them.
    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: folder)
    }

    static var available: Bool {
        getuid() == 0
            && ["/usr/sbin/avahi-daemon", "/usr/bin/dbus-daemon", "/usr/bin/avahi-browse", "/usr/bin/avahi-publish"]
                .allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

@Suite(.serialized, .timeLimit(.minutes(3))) struct DiscoveryTests {
    @Test(.enabled(if: AvahiInNamespace.available, "needs root, avahi-daemon, avahi-utils and dbus"))
    func advertiseInOneNamespaceBrowseFromTheOther() async throws {
        let pair = try VethPair(mtu: 1500, ipv6: true)
        defer { pair.remove() }
        let server = try AvahiInNamespace(namespace: pair.server)
        defer { server.stop() }
        let client = try AvahiInNamespace(namespace: pair.client)
        defer { client.stop() }

        let ad = try Discovery.advertise(name: "pbl bench #1", port: 7_411, systemBus: server.systemBus)
        #expect(ad.name == "pbl bench #1")
        let peer = try Discovery.find(name: nil, timeoutSeconds: 4, systemBus: client.systemBus)
        #expect(peer.name == "pbl bench #1")
        #expect(peer.address == VethPair.serverAddress)  // IPv4 preferred over the link-local IPv6 entry
        #expect(peer.port == 7_411)
        #expect(peer.controlVersions == RemoteLink.controlProtocolVersions)
        #expect(peer.endpoint == "\(VethPair.serverAddress):7411")
        #expect(peer.host.hasSuffix(".local"))

        // A second instance: `auto` alone is now ambiguous; the name picks one.
        let other = try Discovery.advertise(name: "pbl other", port: 7_412, systemBus: server.systemBus)
        let found = try Discovery.browse(timeoutSeconds: 3, systemBus: client.systemBus)
        #expect(Set(found.map(\.name)) == ["pbl bench #1", "pbl other"])
        let error = #expect(throws: DiscoveryError.self) { try Discovery.pick(found, name: nil) }
        #expect(
            error?.description == "2 peerbench servers found by DNS-SD: \"pbl bench #1\", \"pbl other\"; choose one with --peer auto:NAME"
                || error?.description == "2 peerbench servers found by DNS-SD: \"pbl other\", \"pbl bench #1\"; choose one with --peer auto:NAME")
        #expect(try Discovery.find(name: "pbl other", timeoutSeconds: 4, systemBus: client.systemBus).port == 7_412)
        // What `run --peer` then connects to.
        #expect(try Discovery.resolvePeerOption("auto:pbl other", systemBus: client.systemBus) == "\(VethPair.serverAddress):7412")
        #expect(try Discovery.resolvePeerOption("10.9.9.9:7400", systemBus: client.systemBus) == "10.9.9.9:7400")

        // Withdrawn records go away (Avahi sends goodbyes): then none is found.
        ad.stop()
        other.stop()
        var left = try Discovery.browse(timeoutSeconds: 1, systemBus: client.systemBus)
        let deadline = Date().addingTimeInterval(10)
        while !left.isEmpty && Date() < deadline {
            left = try Discovery.browse(timeoutSeconds: 1, systemBus: client.systemBus)
        }
        #expect(left.isEmpty)
        let none = #expect(throws: DiscoveryError.self) { try Discovery.pick(left, name: nil) }
        #expect(none?.description.contains("no peerbench server found") == true)
    }

    @Test func withoutTheDaemonTheErrorSaysHowToStartIt() {
        let bus = "unix:path=/tmp/pbl-no-bus-\(getpid())"
        for attempt in [
            { _ = try Discovery.browse(timeoutSeconds: 2, systemBus: bus) },
            { _ = try Discovery.advertise(port: 7_400, systemBus: bus, timeoutSeconds: 2) },
        ] {
            let error = #expect(throws: DiscoveryError.self) { try attempt() }
            #expect(error?.description.contains("Avahi's daemon is not running") == true)
            #expect(error?.description.contains("systemctl start avahi-daemon") == true)
        }
    }

    @Test func browseLinesAreParsedAsAvahiEscapesThem() {
        let v4 = AvahiBrowseLine.parse(#"=;wlan0;IPv4;lab\032pi\0592\.b;_peerbench._tcp;local;pi.local;192.168.7.2;7400;"txtvers=1" "proto=1,2""#)
        #expect(
            v4
                == DiscoveredPeer(
                    name: "lab pi;2.b", host: "pi.local", address: "192.168.7.2", port: 7_400,
                    txt: ["txtvers": "1", "proto": "1,2"]))
        #expect(v4?.controlVersions == [1, 2])
        let v6 = AvahiBrowseLine.parse(#"=;wlan0;IPv6;pi;_peerbench._tcp;local;pi.local;fe80::1;7400;"proto=1""#)
        #expect(v6?.address == "fe80::1%wlan0")
        #expect(v6?.endpoint == "[fe80::1%wlan0]:7400")
        #expect(AvahiBrowseLine.parse("+;wlan0;IPv4;pi;_peerbench._tcp;local") == nil)
        #expect(AvahiBrowseLine.removed(#"-;wlan0;IPv4;lab\032pi;_peerbench._tcp;local"#) == "lab pi")
        #expect(AvahiBrowseLine.removed("+;wlan0;IPv4;pi;_peerbench._tcp;local") == nil)
        #expect(AvahiBrowseLine.removed("-;wlan0;IPv4;pi;_ssh._tcp;local") == nil)
        #expect(AvahiBrowseLine.parse(#"=;wlan0;IPv4;pi;_ssh._tcp;local;pi.local;192.168.7.2;22;"#) == nil)
        #expect(AvahiBrowseLine.parse(#"=;wlan0;IPv4;pi;_peerbench._tcp;local;pi.local;192.168.7.2;notaport;"#) == nil)
    }

    @Test func pickingNamesTheProblem() throws {
        func peer(_ name: String, _ address: String, proto: String = "1") -> DiscoveredPeer {
            DiscoveredPeer(name: name, host: "h.local", address: address, port: 7_400, txt: ["proto": proto])
        }
        let a6 = peer("a", "fe80::1%eth0"), a4 = peer("a", "10.0.0.1"), b = peer("b", "10.0.0.2")
        #expect(try Discovery.pick([a6, a4], name: nil) == a4)
        #expect(try Discovery.pick([a6], name: "a") == a6)
        #expect(try Discovery.pick([a4, b], name: "b") == b)
        let missing = #expect(throws: DiscoveryError.self) { try Discovery.pick([a4, b], name: "c") }
        #expect(missing?.description == "no peerbench server named \"c\" found by DNS-SD (_peerbench._tcp); found: \"a\", \"b\"")
        let old = #expect(throws: DiscoveryError.self) { try Discovery.pick([peer("x", "10.0.0.9", proto: "7")], name: nil) }
        #expect(old?.description.contains("speaks control protocol 7") == true)
        #expect(!Discovery.shortHostName().isEmpty)
        #expect(!Discovery.shortHostName().contains("."))
        #expect(Discovery.PeerSpec("auto") == .auto(name: nil))
        #expect(Discovery.PeerSpec("auto:lab pi") == .auto(name: "lab pi"))
        #expect(Discovery.PeerSpec("10.0.0.2:7400") == .address("10.0.0.2:7400"))
    }
}
