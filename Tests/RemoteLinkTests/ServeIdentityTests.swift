import Foundation
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import QUICTransport
import RemoteLink
import TLSTransport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// serve's own data-plane identity (issue 24, finding 4): the tls and quic servers
/// present serve's fresh certificate, and the client accepts exactly the certificate
/// whose SHA-256 serve announced, whatever the CA or the name; not the bundled one,
/// not another serve's.
@Suite(.timeLimit(.minutes(2))) struct ServeIdentityTests {
    /// One loopback cell: the server presents `identity`, the client pins `pin` (nil =
    /// the bundled CA and the address as the name, as on an emulated link).
    func cell(_ plugin: String, identity: ServeIdentity, pin: [UInt8]?) async throws -> TransportMeasurement {
        let server: any TransportPlugin, client: any TransportPlugin
        let files: JSONValue = .object(JSONObject(["certFile": .string(identity.certFile), "keyFile": .string(identity.keyFile)]))
        let at = JSONPath.root.key("options")
        switch plugin {
        case "tls":
            server = try TLSPlugin(options: PluginOptions(files, path: at))
            client = try TLSPlugin(options: PluginOptions(.object(JSONObject()), path: at))
        default:
            server = try QUICPlugin(
                options: PluginOptions(
                    .object(
                        JSONObject([
                            "certFile": files["certFile"]!, "keyFile": files["keyFile"]!,
                            "handshakeTimeoutSeconds": 5,
                        ])), path: at))
            client = try QUICPlugin(options: PluginOptions(.object(JSONObject(["handshakeTimeoutSeconds": 5])), path: at))
        }
        var context = CellContext.loopback(payload: Payload(count: 100, size: 1_000), rttProbes: 3)
        let s = try await server.startServer(context)
        context.certificatePin = pin
        do {
            let m = try await client.runClient(context, server: s.address)
            s.stop()
            try? await s.finish()
            return m
        } catch {
            s.stop()
            try? await s.finish()
            throw error
        }
    }

    @Test("the identity is a private key and certificate in a private folder, removed when serve ends")
    func filesArePrivateAndGoAway() throws {
        let identity = try ServeIdentity.generate()
        var st = stat()
        #expect(stat(identity.certFile, &st) == 0 && st.st_mode & 0o777 == 0o600)
        #expect(stat(identity.keyFile, &st) == 0 && st.st_mode & 0o777 == 0o600)
        let dir = (identity.certFile as NSString).deletingLastPathComponent
        #expect(stat(dir, &st) == 0 && st.st_mode & 0o777 == 0o700)
        let pem = try String(contentsOfFile: identity.certFile, encoding: .utf8)
        #expect(pem.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(identity.sha256.count == 32)
        #expect(try ServeIdentity.generate().sha256 != identity.sha256, "each serve makes its own")
        identity.remove()
        #expect(access(identity.keyFile, F_OK) != 0 && access(dir, F_OK) != 0)
    }

    @Test("with --identity DIR it is made once and loaded afterwards, with the same digest; a key others can read is refused")
    func persistentIdentity() throws {
        let dir = NSTemporaryDirectory() + "pb-identity-\(UUID())"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let first = try ServeIdentity.loadOrCreate(in: dir)
        var st = stat()
        #expect(stat(dir, &st) == 0 && st.st_mode & 0o777 == 0o700)
        first.remove()
        #expect(access(first.keyFile, F_OK) == 0, "a kept identity survives remove()")
        let again = try ServeIdentity.loadOrCreate(in: dir)
        #expect(again.sha256 == first.sha256 && again.certFile == first.certFile)
        chmod(first.keyFile, 0o640)
        let refused = #expect(throws: InputError.self) { try ServeIdentity.loadOrCreate(in: dir) }
        #expect(
            "\(refused.map { "\($0)" } ?? "")".contains("\(first.keyFile): serve's private key is accessible by group or others (mode 640)"),
            "\(String(describing: refused))")
        chmod(first.keyFile, 0o600)
        try "not a certificate".write(toFile: first.certFile, atomically: true, encoding: .utf8)
        let bad = #expect(throws: InputError.self) { try ServeIdentity.loadOrCreate(in: dir) }
        #expect("\(bad.map { "\($0)" } ?? "")".contains("\(first.certFile): not a PEM certificate"), "\(String(describing: bad))")
    }

    @Test("a client that pins serve's digest accepts its certificate, with no CA and no name", arguments: ["tls", "quic"])
    func pinnedIdentityIsAccepted(_ plugin: String) async throws {
        let identity = try ServeIdentity.generate()
        let m = try await cell(plugin, identity: identity, pin: identity.sha256)
        #expect(m.status == .ok, "\(m.error ?? "")")
        #expect(m.delivery?.receivedMessages == 100)
        #expect(m.extra[plugin]?["authentication"] == "x509-pinned")
    }

    @Test("another certificate than the one announced fails the cell and names both digests", arguments: ["tls", "quic"])
    func anotherCertificateIsRefused(_ plugin: String) async throws {
        let impostor = try ServeIdentity.generate()
        let announced = try ServeIdentity.generate()
        let error = await #expect(throws: (any Error).self) { try await cell(plugin, identity: impostor, pin: announced.sha256) }
        let text = "\(error.map { "\($0)" } ?? "")"
        #expect(
            text.contains(
                "\(plugin) client: the server's certificate (sha256 \(impostor.sha256Hex)) is not the one serve announced (sha256 \(announced.sha256Hex))"
            ),
            "\(text)")
    }

    @Test("without a pin, serve's certificate does not verify against the bundled CA", arguments: ["tls", "quic"])
    func unpinnedTheBundledCADoesNotVouchForIt(_ plugin: String) async throws {
        let identity = try ServeIdentity.generate()
        await #expect(throws: (any Error).self) { try await cell(plugin, identity: identity, pin: nil) }
    }
}
