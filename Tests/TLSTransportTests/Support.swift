import Foundation
import Logging
import PeerBenchCore
import PeerBenchPlugin
import TLSTransport
import TransportTestSupport

/// Runs one cell with `server` and `client` plugins (normally the same value), the way
/// the runner does: start the server, run the client, stop the server if the client failed.
func runCell(server: TLSPlugin, client: TLSPlugin, payload: Payload?, probes: Int = 10) async throws -> TransportMeasurement {
    let cell = CellContext.loopback(payload: payload, rttProbes: probes)
    let s = try await server.startServer(cell)
    do {
        let m = try await client.runClient(cell, server: s.address)
        try await s.finish()
        return m
    } catch {
        s.stop()
        do { try await s.finish() } catch let serverError {
            throw TransportError("\(error) [server: \(serverError)]")
        }
        throw error
    }
}

/// A throwaway CA of our own (certtool, as certs/regenerate.sh uses): the bundled
/// server certificate was not issued by it.
func makeForeignCA() throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pb-foreign-ca-\(UUID())").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    try "cn = \"Some Other CA\"\nca\ncert_signing_key\nexpiration_days = 30\n".write(toFile: dir + "/ca.tmpl", atomically: true, encoding: .utf8)
    for args in [
        ["--generate-privkey", "--key-type=ecdsa", "--no-text", "--outfile", dir + "/ca-key.pem"],
        [
            "--generate-self-signed", "--load-privkey", dir + "/ca-key.pem", "--template", dir + "/ca.tmpl", "--no-text",
            "--outfile", dir + "/ca.pem",
        ],
    ] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/certtool")
        p.arguments = args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw TransportError("certtool \(args[0]) failed") }
    }
    return dir + "/ca.pem"
}
