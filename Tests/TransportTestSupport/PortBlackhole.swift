import Foundation
import PeerBenchPlugin

/// One UDP port blackholed in a network namespace by policy routing: rules that forbid
/// every packet from or to it (`ip rule ... sport/dport PORT prohibit`), what a NAT
/// rebinding or an interface change does to a QUIC client's 4-tuple. The lookup of the
/// local table must first move behind those rules (`prepare`), else it answers first.
/// Sends on the blackholed port fail (EACCES). Used by the quic migration tests.
public enum PortBlackhole {
    public static let ip = "/usr/sbin/ip"
    public static let tc = "/usr/sbin/tc"

    /// Runs `program`; a non-zero exit throws, naming the command and its stderr.
    public static func run(_ program: String, _ args: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = args
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let message = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw TransportError(
                "\(program) \(args.joined(separator: " ")): exit \(p.terminationStatus): \(String(decoding: message, as: UTF8.self))")
        }
    }

    /// Moves the local table's lookup in `namespace` behind the blackhole rules' places.
    public static func prepare(namespace: String) throws {
        try run(ip, ["-n", namespace, "rule", "add", "pref", "100", "lookup", "local"])
        try run(ip, ["-n", namespace, "rule", "del", "pref", "0"])
    }

    /// Forbids every UDP packet from or to `port` in `namespace`.
    public static func cut(port: Int, namespace: String) throws {
        for (pref, dir) in [(10, "sport"), (11, "dport")] {
            try run(ip, ["-n", namespace, "rule", "add", "pref", "\(pref)", "ipproto", "udp", dir, "\(port)", "prohibit"])
        }
    }

    /// Lets the cut port through again.
    public static func lift(namespace: String) throws {
        for pref in [10, 11] { try run(ip, ["-n", namespace, "rule", "del", "pref", "\(pref)"]) }
    }
}
