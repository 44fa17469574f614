import Foundation
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Two network namespaces, client and server, each with a TUN device, loopback up and
/// a point-to-point address pair that exists only inside them. The host's own
/// namespace is never touched.
///
/// Names are `pb-<pid>-<n>c` and `pb-<pid>-<n>s`: the owning process id lets a later
/// run recognise leftovers of a crashed one (`removeLeftovers`). A reaper process,
/// started in its own session, deletes the pair as soon as this process ends for any
/// reason (even SIGKILL): it waits for end-of-file on a pipe only we hold open.
final class NamespacePair {
    /// Prefix of every namespace PeerBench creates.
    static let prefix = "pb-"
    static let deviceName = "pb0"
    static let clientAddress = "10.201.0.1"
    static let serverAddress = "10.201.0.2"

    let client: NetworkNamespace
    let server: NetworkNamespace
    let clientTUN: TUNDevice
    let serverTUN: TUNDevice
    private(set) var mtu: Int
    /// The shaper on both devices now (nil = the kernel's default qdisc).
    private(set) var shaper: SenderShaper?
    /// The devices' txqueuelen now: `Self.deviceQueueLength`, or what the shaper needs.
    private var deviceQueueLength = NamespacePair.deviceQueueLength
    /// txqueuelen without a shaper: room for bursts from the sending stack before the
    /// emulator reads them. Deep on purpose: the link's queue is the emulator's
    /// (`QueueLimits`, which drops and counts), so a burst of 10 000 unpaced datagrams
    /// must reach it rather than overflow here while the emulator thread catches up.
    static let deviceQueueLength = 32_768
    private var reaper: Process?
    private var reaperPipe: Pipe?
    private var removed = false

    private static let counter = Mutex(0)

    /// Creates the pair for process `ownerPid` (normally this process).
    init(mtu: Int, ownerPid: Int32 = getpid(), reaper startReaper: Bool = true) throws {
        let n = Self.counter.withLock { c in
            defer { c += 1 }
            return c
        }
        client = NetworkNamespace(name: "\(Self.prefix)\(ownerPid)-\(n)c")
        server = NetworkNamespace(name: "\(Self.prefix)\(ownerPid)-\(n)s")
        self.mtu = mtu
        var created: [NetworkNamespace] = []
        // The reaper is armed before the first `ip netns add`: a kill at any point of
        // the set-up then leaves nothing behind (deleting a name never added is harmless).
        let reaper = startReaper ? try Self.startReaper(for: [client, server]) : nil
        do {
            for ns in [client, server] {
                try IPCommand.run(["netns", "add", ns.name])
                created.append(ns)
                Self.testPauseInSetUp()
            }
            let c = try TUNDevice(name: Self.deviceName, in: client)
            let s = try TUNDevice(name: Self.deviceName, in: server)
            try Self.configure(client, local: Self.clientAddress, peer: Self.serverAddress, mtu: mtu)
            try Self.configure(server, local: Self.serverAddress, peer: Self.clientAddress, mtu: mtu)
            clientTUN = c
            serverTUN = s
        } catch {
            for ns in created { _ = try? IPCommand.run(["netns", "del", ns.name]) }
            if let (process, pipe) = reaper {
                try? pipe.fileHandleForWriting.close()
                process.waitUntilExit()
            }
            throw error
        }
        self.reaper = reaper?.0
        reaperPipe = reaper?.1
    }

    deinit { remove() }

    /// Testing hook: `PEERBENCH_TEST_SETUP_PAUSE_MS` makes the set-up pause after each
    /// `ip netns add`, so a test can kill or signal a run deterministically in the
    /// middle of creating its namespaces. Never set for measurements.
    private static func testPauseInSetUp() {
        guard let text = ProcessInfo.processInfo.environment["PEERBENCH_TEST_SETUP_PAUSE_MS"], let ms = UInt32(text) else { return }
        usleep(min(ms, 60_000) * 1000)
    }

    private static func configure(_ ns: NetworkNamespace, local: String, peer: String, mtu: Int) throws {
        try IPCommand.run(["-n", ns.name, "link", "set", "lo", "up"])
        try IPCommand.run(["-n", ns.name, "addr", "add", local, "peer", peer, "dev", deviceName])
        try IPCommand.run(["-n", ns.name, "link", "set", deviceName, "mtu", String(mtu), "txqueuelen", String(deviceQueueLength), "up"])
    }

    /// Changes both devices' MTU (between cells).
    func setMTU(_ newMTU: Int) throws {
        guard newMTU != mtu else { return }
        for ns in [client, server] {
            try IPCommand.run(["-n", ns.name, "link", "set", Self.deviceName, "mtu", String(newMTU)])
        }
        mtu = newMTU
    }

    /// Puts `shaper` on both devices' egress (towards the emulator), or restores the
    /// kernel's default qdisc for nil. A shaper is replaced even when unchanged: that
    /// discards what a previous cell's sender left in it.
    func setShaper(_ new: SenderShaper?) throws {
        guard new != nil || shaper != nil else { return }
        let queueLength = new?.deviceQueueLength ?? Self.deviceQueueLength
        for ns in [client, server] {
            // Deleted first: `replace` would keep the previous cell's queued packets in
            // the priority bands under the tbf. Deleting puts the default qdisc back.
            _ = try? IPCommand.tc(["-n", ns.name, "qdisc", "del", "dev", Self.deviceName, "root"])
            if deviceQueueLength != queueLength {
                try IPCommand.run(["-n", ns.name, "link", "set", Self.deviceName, "txqueuelen", String(queueLength)])
            }
            if let new { try IPCommand.tcBatch(new.tcBatch(device: Self.deviceName), namespace: ns.name) }
        }
        shaper = new
        deviceQueueLength = queueLength
    }

    /// Packets the devices' root qdiscs have dropped since they were created, client's
    /// then server's: what the shaper refused because its own limit was reached.
    func qdiscDrops() -> (client: Int, server: Int) {
        func drops(_ ns: NetworkNamespace) -> Int {
            guard let out = try? IPCommand.tc(["-n", ns.name, "-s", "-j", "qdisc", "show", "dev", Self.deviceName]),
                let list = (try? JSONParser.parse(out))?.arrayValue
            else { return 0 }
            return list.filter { $0["root"]?.boolValue == true }.reduce(0) { $0 + ($1["drops"]?.intValue ?? 0) }
        }
        return (drops(client), drops(server))
    }

    /// Closes the devices and deletes both namespaces. Idempotent.
    func remove() {
        guard !removed else { return }
        removed = true
        clientTUN.close()
        serverTUN.close()
        for ns in [client, server] { _ = try? IPCommand.run(["netns", "del", ns.name]) }
        stopReaper()
    }

    // MARK: Cleanup after an abnormal end

    private static func startReaper(for namespaces: [NetworkNamespace]) throws -> (Process, Pipe) {
        let pipe = Pipe()
        // Only this process may hold the write end: children we start later must not
        // inherit it, or the reaper would wait for them too.
        _ = fcntl(pipe.fileHandleForWriting.fileDescriptor, F_SETFD, FD_CLOEXEC)
        let p = Process()
        // setsid: a Ctrl-C sends SIGINT to the whole foreground process group; the
        // reaper must outlive it to clean up.
        p.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        let ip = IPCommand.path
        let deletes = namespaces.map { "\(ip) netns del \($0.name) 2>/dev/null" }.joined(separator: "; ")
        p.arguments = ["sh", "-c", "read _ignored; \(deletes); exit 0"]
        p.standardInput = pipe
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        do {
            try p.run()
        } catch {
            throw LinkSetupError("cannot start the namespace reaper (/usr/bin/setsid sh): \(error)")
        }
        try? pipe.fileHandleForReading.close()
        return (p, pipe)
    }

    /// Ends the reaper. After a normal removal the namespaces are already gone, so its
    /// own `ip netns del` finds nothing.
    private func stopReaper() {
        if let pipe = reaperPipe { try? pipe.fileHandleForWriting.close() }
        reaperPipe = nil
        reaper?.waitUntilExit()
        reaper = nil
    }

    /// For tests: behave as if this process had died (the reaper sees end-of-file)
    /// without removing anything ourselves.
    func simulateOwnerDeath() {
        clientTUN.close()
        serverTUN.close()
        removed = true
        if let pipe = reaperPipe { try? pipe.fileHandleForWriting.close() }
        reaperPipe = nil
        reaper?.waitUntilExit()
        reaper = nil
    }

    /// PeerBench namespaces (`pb-<pid>-...`) whose owning process is no longer running.
    static func leftovers() -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/run/netns") else { return [] }
        return names.filter { name in
            guard name.hasPrefix(prefix) else { return false }
            let rest = name.dropFirst(prefix.count)
            guard let dash = rest.firstIndex(of: "-"), let pid = Int32(rest[..<dash]), pid > 0 else { return false }
            return kill(pid, 0) != 0 && errno == ESRCH
        }.sorted()
    }

    /// Deletes leftovers of dead runs; returns their names.
    @discardableResult
    static func removeLeftovers() -> [String] {
        let names = leftovers()
        for name in names { _ = try? IPCommand.run(["netns", "del", name]) }
        return names
    }
}
