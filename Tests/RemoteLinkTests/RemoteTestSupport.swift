import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import TransportTestSupport

/// Two network namespaces joined by a veth pair: the "server host" and the "client
/// host" of the remote tests. The client side has a second address, the stranger
/// that must get nothing from serve's data ports. Created and removed by the test;
/// names start with `pbr-` (this work's prefix) so parallel test runs never collide.
final class VethHosts: @unchecked Sendable {
    let server: NetworkNamespace
    let client: NetworkNamespace
    let serverAddress: String
    let clientAddress: String
    /// A third address on the client's host: not the authenticated client.
    let strangerAddress: String

    private static let counter = NSLock()
    nonisolated(unsafe) private static var next = 0

    init() throws {
        let n = Self.counter.withLock { () -> Int in
            Self.next += 1
            return Self.next
        }
        let tag = "\(getpid() % 100_000)-\(n)"
        server = NetworkNamespace(name: "pbr-s-\(tag)")
        client = NetworkNamespace(name: "pbr-c-\(tag)")
        let subnet = 10 + Int(getpid() % 200)
        serverAddress = "10.213.\(subnet).1"
        clientAddress = "10.213.\(subnet).2"
        strangerAddress = "10.213.\(subnet).3"
        let (a, b) = ("pbrs\(tag)", "pbrc\(tag)")
        do {
            try Self.ip(["netns", "add", server.name])
            try Self.ip(["netns", "add", client.name])
            try Self.ip(["link", "add", a, "netns", server.name, "type", "veth", "peer", "name", b, "netns", client.name])
            try Self.ip(["-n", server.name, "link", "set", "lo", "up"])
            try Self.ip(["-n", client.name, "link", "set", "lo", "up"])
            try Self.ip(["-n", server.name, "addr", "add", serverAddress + "/24", "dev", a])
            try Self.ip(["-n", client.name, "addr", "add", clientAddress + "/24", "dev", b])
            try Self.ip(["-n", client.name, "addr", "add", strangerAddress + "/24", "dev", b])
            try Self.ip(["-n", server.name, "link", "set", a, "up"])
            try Self.ip(["-n", client.name, "link", "set", b, "up"])
        } catch {
            remove()
            throw error
        }
    }

    func remove() {
        try? Self.ip(["netns", "del", server.name])
        try? Self.ip(["netns", "del", client.name])
    }

    static func ip(_ args: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        if !FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") { p.executableURL = URL(fileURLWithPath: "/sbin/ip") }
        p.arguments = args
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        if p.terminationStatus != 0 {
            let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw TransportError("ip \(args.joined(separator: " ")): \(text)")
        }
    }
}

/// A `peerbench` process started inside a namespace, its output collected.
final class PeerbenchProcess: @unchecked Sendable {
    let process = Process()
    private let out = Pipe(), err = Pipe()
    private let lock = NSLock()
    private var outText = Data(), errText = Data()

    init(_ args: [String], in namespace: NetworkNamespace?, cwd: String = packageRoot) throws {
        if let namespace {
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
            process.arguments = ["netns", "exec", namespace.name, PeerbenchBinary.path] + args
        } else {
            process.executableURL = URL(fileURLWithPath: PeerbenchBinary.path)
            process.arguments = args
        }
        process.currentDirectoryURL = URL(fileURLWithPath: cwd)
        process.standardOutput = out
        process.standardError = err
        out.fileHandleForReading.readabilityHandler = { [weak self] h in
            let d = h.availableData
            self?.lock.withLock { self?.outText.append(d) }
        }
        err.fileHandleForReading.readabilityHandler = { [weak self] h in
            let d = h.availableData
            self?.lock.withLock { self?.errText.append(d) }
        }
        try process.run()
    }

    var stdout: String { lock.withLock { String(decoding: outText, as: UTF8.self) } }
    var stderr: String { lock.withLock { String(decoding: errText, as: UTF8.self) } }

    /// Waits for the process to exit (killing it after `seconds`); its exit status.
    @discardableResult
    func wait(seconds: Double) -> Int32 {
        let limit = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < limit { usleep(20_000) }
        if process.isRunning { kill(SIGKILL) }
        process.waitUntilExit()
        usleep(50_000)  // the last output
        return process.terminationStatus
    }

    /// Polls until `stderr` (or stdout) contains `text`; false after `seconds`.
    func waitFor(_ text: String, seconds: Double) -> Bool {
        let limit = Date().addingTimeInterval(seconds)
        while Date() < limit {
            if stderr.contains(text) || stdout.contains(text) { return true }
            if !process.isRunning { return stderr.contains(text) || stdout.contains(text) }
            usleep(20_000)
        }
        return false
    }

    /// Sends `signal` to the peerbench process itself (not only `ip netns exec`, which execs it anyway).
    func kill(_ signal: Int32) {
        if process.isRunning { Glibc.kill(process.processIdentifier, signal) }
    }
}
