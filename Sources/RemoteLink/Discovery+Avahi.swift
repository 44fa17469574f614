import Foundation

#if canImport(Glibc)
    import Glibc
#endif

// Avahi through its own command-line clients, `avahi-publish` and `avahi-browse`
// (Debian's avahi-utils), rather than libavahi-client: the tools are Avahi's stable,
// documented interface (`-p` is a parsable format made for scripts), a publication
// lives exactly as long as its process (so a crashed `serve` cannot leave a stale
// record behind), and the build needs no extra -dev package or system-library target.
// Both talk to avahi-daemon over the D-Bus system bus; `systemBus` overrides its
// address (DBUS_SYSTEM_BUS_ADDRESS), which the tests use to reach a daemon of their own.
extension Discovery {
    /// Publishes `_peerbench._tcp` on `port` under `name` (default: the host name) with
    /// the control protocol versions in TXT, until the advertisement is stopped. Returns
    /// once Avahi has registered it (the name may have been changed on a collision).
    public static func advertise(
        name: String? = nil, port: UInt16, systemBus: String? = nil,
        timeoutSeconds: Double = 10
    ) throws(DiscoveryError) -> Advertisement {
        let instance = name ?? shortHostName()
        let versions = RemoteLink.controlProtocolVersions.map(String.init).joined(separator: ",")
        let tool = try AvahiTool.start(
            "avahi-publish", ["-s", instance, RemoteLink.serviceType, String(port), "\(versionsKey)=\(versions)"],
            systemBus: systemBus)
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            guard let line = tool.nextLine(until: deadline) else { break }
            if let registered = line.quoted(after: "Established under name ") {
                return Advertisement(name: registered, port: port, tool: tool)
            }
            if line.hasPrefix("Failed") { break }  // "Failed to create client object: ...", "Failed to add service: ..."
        }
        let timedOut = !tool.ended && tool.isRunning
        let output = tool.finish()
        throw AvahiTool.failure("avahi-publish", output: output, timedOut: timedOut)
    }

    /// Every `_peerbench._tcp` instance resolved within `timeoutSeconds` (mDNS answers
    /// from another host take a moment: a second or two on a quiet link). With `name`,
    /// returns as soon as that instance resolves to an IPv4 address.
    public static func browse(name: String? = nil, timeoutSeconds: Double = 3, systemBus: String? = nil) throws(DiscoveryError) -> [DiscoveredPeer] {
        // -p parsable, -r resolve, -k raw service types (no database lookup).
        let tool = try AvahiTool.start("avahi-browse", ["-p", "-r", "-k", RemoteLink.serviceType], systemBus: systemBus)
        var found: [DiscoveredPeer] = []
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while let line = tool.nextLine(until: deadline) {
            if line.hasPrefix("Failed") { break }  // "Failed to create client object: Daemon not running"
            // A withdrawn instance (its goodbye, or a cached record expiring) is gone.
            if let gone = AvahiBrowseLine.removed(line) {
                found.removeAll { $0.name == gone }
                continue
            }
            guard let peer = AvahiBrowseLine.parse(line) else { continue }
            if !found.contains(peer) { found.append(peer) }
            if let name, peer.name == name, !peer.address.contains(":") { break }
        }
        let exited = tool.ended || !tool.isRunning || tool.printedFailure
        let output = tool.finish()
        if exited && found.isEmpty { throw AvahiTool.failure("avahi-browse", output: output, timedOut: false) }
        return found
    }

    /// This host's name up to the first dot: gethostname(2) alone (Foundation's
    /// `hostName` may ask DNS, which a field laptop offline cannot answer).
    static func shortHostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "peerbench" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.split(separator: ".").first.map(String.init) ?? "peerbench"
    }

    /// What `run --peer TEXT` connects to: TEXT itself, or for `auto` / `auto:NAME` the
    /// instance DNS-SD finds, as `HOST:PORT`.
    public static func resolvePeerOption(_ text: String, timeoutSeconds: Double = 3, systemBus: String? = nil) throws(DiscoveryError) -> String {
        switch PeerSpec(text) {
        case .address(let address): return address
        case .auto(let name): return try find(name: name, timeoutSeconds: timeoutSeconds, systemBus: systemBus).endpoint
        }
    }

    /// `--peer auto[:NAME]`: browses and picks the named or only instance.
    public static func find(name: String?, timeoutSeconds: Double = 3, systemBus: String? = nil) throws(DiscoveryError) -> DiscoveredPeer {
        try pick(browse(name: name, timeoutSeconds: timeoutSeconds, systemBus: systemBus), name: name)
    }
}

/// One Avahi client process, its output read line by line with a deadline.
final class AvahiTool {
    private let process: Process
    private let fd: Int32
    private let pipe: Pipe
    private var buffer: [UInt8] = []
    private var output: [String] = []
    private let lock = NSLock()
    /// The tool's lifeline: the wrapper stops the tool when this pipe closes, which
    /// happens when we close it or when this process dies in any way (even SIGKILL),
    /// so an advertisement never outlives `serve`.
    private let lifeline: Pipe

    private init(process: Process, pipe: Pipe, lifeline: Pipe) {
        self.process = process
        self.pipe = pipe
        self.lifeline = lifeline
        fd = pipe.fileHandleForReading.fileDescriptor
    }

    /// Starts a watchdog that reads the lifeline (fd 3, a copy of stdin: a background
    /// job's stdin is /dev/null) and SIGTERMs `$$` at end of file, then execs the tool
    /// ("$0" "$@") in place of the shell, so `$$` is the tool itself and no shell is
    /// left waiting (dash's `wait` would hang with SIGCHLD blocked, which the child
    /// inherits from our threads). The watchdog ends once the lifeline closes, which
    /// `finish` does right after the tool ends.
    private static let wrapper = """
        exec 3<&0
        ( read x <&3; kill $$ 2>/dev/null ) >/dev/null 2>&1 &
        exec 3<&-
        exec "$0" "$@"
        """

    static func start(_ tool: String, _ arguments: [String], systemBus: String?) throws(DiscoveryError) -> AvahiTool {
        let candidates: [String] = ["/usr/bin", "/bin", "/usr/local/bin"].map { dir in dir + "/" + tool }
        guard let path = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw DiscoveryError(
                "\(tool) not found: DNS-SD needs Avahi's tools (Debian: apt-get install avahi-daemon avahi-utils; scripts/setup.sh installs them)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", wrapper, path] + arguments
        var environment = ProcessInfo.processInfo.environment
        if let systemBus { environment["DBUS_SYSTEM_BUS_ADDRESS"] = systemBus }
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let lifeline = Pipe()
        process.standardInput = lifeline
        // Only the child's own stdin/stdout/stderr may reach it (dup2 clears the flag on
        // those): a copy of another tool's lifeline or output pipe inherited by this one
        // would keep that pipe open, and its tool running, after it was closed.
        for handle in [pipe.fileHandleForReading, pipe.fileHandleForWriting, lifeline.fileHandleForReading, lifeline.fileHandleForWriting] {
            _ = fcntl(handle.fileDescriptor, F_SETFD, FD_CLOEXEC)
        }
        // The child inherits this thread's signal mask, and dispatch's and the test
        // runner's threads block SIGTERM: unblocked here, the tool can be stopped with it.
        var term = sigset_t(), previous = sigset_t()
        sigemptyset(&term)
        sigaddset(&term, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &term, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        do { try process.run() } catch { throw DiscoveryError("cannot run \(path): \(error)") }
        return AvahiTool(process: process, pipe: pipe, lifeline: lifeline)
    }

    var isRunning: Bool { process.isRunning }
    /// The tool closed its output: it has exited or is exiting.
    private(set) var ended = false
    /// Whether a line of the tool's began "Failed" (how Avahi's tools report errors).
    var printedFailure: Bool { lock.withLock { output.contains { $0.hasPrefix("Failed") } } }

    /// The next line of the tool's output (stdout and stderr), nil at the deadline or end.
    func nextLine(until deadline: Date) -> String? {
        lock.withLock {
            while true {
                if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: buffer[..<newline], as: UTF8.self)
                    buffer.removeSubrange(...newline)
                    output.append(line)
                    return line
                }
                let ms = Int32(max(0, min(deadline.timeIntervalSinceNow * 1000, 1_000)))
                if ms == 0 { return nil }
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&p, 1, ms) > 0 else { continue }
                var chunk = [UInt8](repeating: 0, count: 4_096)
                let n = read(fd, &chunk, chunk.count)
                if n <= 0 {
                    // End of output: what is left is the last (unterminated) line.
                    ended = true
                    guard !buffer.isEmpty else { return nil }
                    buffer.append(UInt8(ascii: "\n"))
                    continue
                }
                buffer += chunk[0..<n]
            }
        }
    }

    /// Stops the tool (the lifeline closes: the watchdog SIGTERMs it, and avahi-publish
    /// withdraws its record) and returns all it printed; SIGKILL to the wrapper if it
    /// has not gone after a second.
    @discardableResult
    func finish() -> [String] {
        try? lifeline.fileHandleForWriting.close()
        for _ in 0..<100 where process.isRunning { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return lock.withLock {
            // What it printed last; poll, not read-to-end, in case a grandchild kept the pipe open.
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            var chunk = [UInt8](repeating: 0, count: 4_096)
            while poll(&p, 1, 100) > 0 {
                let n = read(fd, &chunk, chunk.count)
                if n <= 0 { break }
                buffer += chunk[0..<n]
            }
            if !buffer.isEmpty { output.append(String(decoding: buffer, as: UTF8.self)) }
            buffer = []
            return output
        }
    }

    /// The error for a tool that failed or never answered, with how to start Avahi.
    static func failure(_ tool: String, output: [String], timedOut: Bool) -> DiscoveryError {
        let text = output.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: "; ")
        if text.contains("Daemon not running") || text.contains("Failed to create client") {
            return DiscoveryError(
                "Avahi's daemon is not running (\(tool): \(text)); start it with `sudo systemctl start avahi-daemon` (without systemd: start the D-Bus system bus, e.g. `sudo service dbus start`, then `sudo avahi-daemon -D`)"
            )
        }
        if timedOut { return DiscoveryError("\(tool) got no answer from avahi-daemon in time\(text.isEmpty ? "" : " (\(text))")") }
        return DiscoveryError("\(tool) failed: \(text.isEmpty ? "no output" : text)")
    }
}

/// A line of `avahi-browse -p -r`: `=;IFACE;IPv4;NAME;TYPE;DOMAIN;HOST;ADDRESS;PORT;"k=v" ...`
/// (resolved entries only; `+` and `-` lines carry no address). Names are escaped as
/// avahi escapes DNS labels: `\.`, `\\`, and `\DDD` (a decimal byte: `\032` is a space).
enum AvahiBrowseLine {
    static func parse(_ line: String) -> DiscoveredPeer? {
        let fields = line.split(separator: ";", maxSplits: 9, omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 10, fields[0] == "=", fields[4] == RemoteLink.serviceType, let port = UInt16(fields[8]) else { return nil }
        var address = fields[7]
        if address.lowercased().hasPrefix("fe80:") && !fields[1].isEmpty { address += "%" + fields[1] }
        return DiscoveredPeer(name: unescape(fields[3]), host: unescape(fields[6]), address: address, port: port, txt: txt(fields[9]))
    }

    /// The instance name of a removal line, `-;IFACE;IPv4;NAME;TYPE;DOMAIN`.
    static func removed(_ line: String) -> String? {
        let fields = line.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        guard fields.count >= 6, fields[0] == "-", fields[4] == RemoteLink.serviceType else { return nil }
        return unescape(fields[3])
    }

    static func unescape(_ text: String) -> String {
        var bytes: [UInt8] = []
        var input = Array(text.utf8)[...]
        while let b = input.popFirst() {
            guard b == UInt8(ascii: "\\"), let next = input.first else {
                bytes.append(b)
                continue
            }
            let digits = input.prefix(3)
            if digits.count == 3, digits.allSatisfy({ (48...57).contains($0) }),
                let value = UInt8(String(decoding: digits, as: UTF8.self))
            {
                bytes.append(value)
                input = input.dropFirst(3)
            } else {
                bytes.append(next)
                input = input.dropFirst()
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `"proto=1" "txtvers=1"`: quoted strings, each `key=value` (or a bare key).
    static func txt(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        var current: String?
        for c in text {
            if c == "\"" {
                if let item = current {
                    let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    result[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
                    current = nil
                } else {
                    current = ""
                }
            } else if current != nil {
                current!.append(c)
            }
        }
        return result
    }
}

extension String {
    /// The text between single quotes after `prefix`: `Established under name 'x'` -> x.
    func quoted(after prefix: String) -> String? {
        guard let range = range(of: prefix) else { return nil }
        let rest = self[range.upperBound...]
        guard rest.first == "'", let end = rest.dropFirst().lastIndex(of: "'") else { return nil }
        return String(rest[rest.index(after: rest.startIndex)..<end])
    }
}
