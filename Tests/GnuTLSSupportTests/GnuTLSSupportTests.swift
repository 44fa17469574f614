import Foundation
import GnuTLSSupport
import PeerBenchPlugin
import PeerBenchSystem
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The repository's bundled test identities.
let certs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("certs").path
let priority = "NORMAL:-VERS-ALL:+VERS-TLS1.3"
let pskPriority = "NORMAL:-VERS-ALL:+VERS-TLS1.3:-KX-ALL:+ECDHE-PSK:+DHE-PSK"

/// A connected pair of blocking stream sockets whose calls give up after 5 s.
func socketPair() -> (Int32, Int32) {
    var fds: [Int32] = [0, 0]
    precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    for fd in fds {
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }
    return (fds[0], fds[1])
}

/// Runs both handshakes over a socket pair, the server's on its own thread; returns
/// each side's error (nil = it completed). A side that gave up shuts its socket down,
/// so the other does not wait for its timeout.
func handshake(client: GnuTLSSession, server: GnuTLSSession) -> (client: GnuTLSError?, server: GnuTLSError?) {
    let (c, s) = socketPair()
    defer {
        close(c)
        close(s)
    }
    client.setTransport(fd: c)
    server.setTransport(fd: s)
    let serverError = Mutex<GnuTLSError?>(nil)
    let done = DispatchSemaphore(value: 0)
    Thread {
        do throws(GnuTLSError) { try server.handshake() } catch { serverError.withLock { $0 = error } }
        shutdown(s, Int32(SHUT_RDWR))
        done.signal()
    }.start()
    var clientError: GnuTLSError?
    do throws(GnuTLSError) { try client.handshake() } catch {
        clientError = error
        shutdown(c, Int32(SHUT_RDWR))  // a server waiting for the client's Finished hears at once
    }
    done.wait()
    return (clientError, serverError.withLock { $0 })
}

/// SHA-256 of a PEM certificate's DER, computed without GnuTLS (base64 + sha256sum).
func independentSHA256(ofPEMFile path: String) throws -> String {
    let pem = try String(contentsOfFile: path, encoding: .utf8)
    let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
    let der = try #require(Data(base64Encoded: body))
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    let input = Pipe(), output = Pipe()
    p.standardInput = input
    p.standardOutput = output
    try p.run()
    input.fileHandleForWriting.write(der)
    try input.fileHandleForWriting.close()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    return String(text.prefix(64))
}

@Suite(.timeLimit(.minutes(1))) struct GnuTLSCredentialsTests {
    @Test func aCertificateAndItsKeyLoad() throws {
        let credentials = try GnuTLSCredentials(
            trusting: certs + "/ca.pem", certificateFile: certs + "/server.pem",
            keyFile: certs + "/server-key.pem", priority: priority)
        #expect(credentials.kind == .certificate)
    }

    @Test func aMissingFileIsNamedInTheError() {
        let missing = certs + "/no-such-ca.pem"
        let error = #expect(throws: GnuTLSError.self) { try GnuTLSCredentials(trusting: missing, priority: priority) }
        #expect(error?.description == "loading the CA file \(missing) failed: Error while reading file. (-64)", "\(String(describing: error))")
        let key = certs + "/no-such-key.pem"
        let keyError = #expect(throws: GnuTLSError.self) {
            try GnuTLSCredentials(trusting: nil, certificateFile: certs + "/server.pem", keyFile: key, priority: priority)
        }
        #expect(keyError?.operation == "loading the certificate \(certs)/server.pem with the key \(key)")
    }

    @Test func aCAFileWithoutACertificateIsRefused() {
        let error = #expect(throws: GnuTLSError.self) { try GnuTLSCredentials(trusting: certs + "/README.md", priority: priority) }
        #expect(error?.code == .noCertificateFound)
        #expect(error?.description.contains("loading the CA file \(certs)/README.md failed") == true)
    }

    @Test func aBadPriorityStringIsNamed() {
        let error = #expect(throws: GnuTLSError.self) { try GnuTLSCredentials(trusting: nil, priority: "NORMAL:+NO-SUCH-THING") }
        #expect(error?.operation == "parsing the priority string \"NORMAL:+NO-SUCH-THING\"")
    }
}

@Suite(.timeLimit(.minutes(1))) struct GnuTLSSessionTests {
    func certificateSessions() throws -> (client: GnuTLSSession, server: GnuTLSSession) {
        let server = try GnuTLSSession(
            .server,
            credentials: GnuTLSCredentials(
                trusting: nil, certificateFile: certs + "/server.pem", keyFile: certs + "/server-key.pem", priority: priority))
        let client = try GnuTLSSession(.client, credentials: GnuTLSCredentials(trusting: certs + "/ca.pem", priority: priority))
        return (client, server)
    }

    @Test("the peer's fingerprint after a real handshake is the SHA-256 of the server's certificate file")
    func peerFingerprintMatchesTheCertificateFile() throws {
        let (client, server) = try certificateSessions()
        try client.verifyServer(named: "localhost")
        let result = handshake(client: client, server: server)
        #expect(result.client == nil && result.server == nil, "\(String(describing: result))")
        #expect(client.verifyStatus.isVerified)
        let presented = try #require(client.peerCertificateSHA256())
        let file = try X509Certificate(pem: Array(try String(contentsOfFile: certs + "/server.pem", encoding: .utf8).utf8)).sha256()
        #expect(presented == file)
        #expect(Hex.encode(presented) == (try independentSHA256(ofPEMFile: certs + "/server.pem")))
        #expect(server.peerCertificateSHA256() == nil, "the client presented none")
        try client.checkPeerCertificate(pinned: file, who: "test client")
        let other = [UInt8](repeating: 7, count: 32)
        #expect { try client.checkPeerCertificate(pinned: other, who: "test client") } throws: { error in
            "\(error)".contains("test client: the server's certificate (sha256 \(Hex.encode(file))) is not the one serve announced")
        }
        let n = client.negotiated
        #expect(n.version == "TLS1.3" && n.isTLS13 && !n.isDiffieHellmanPSK)
        #expect(n.summary?.hasPrefix("(TLS1.3)") == true, "\(n.summary ?? "")")
    }

    @Test("a name the certificate does not cover fails verification, and the status says why")
    func nameMismatchIsReported() throws {
        let (client, server) = try certificateSessions()
        try client.verifyServer(named: "wrong.example")
        let result = handshake(client: client, server: server)
        #expect(result.client?.code == .certificateVerification, "\(String(describing: result.client))")
        #expect(client.verifyStatus.unexpectedOwner && !client.verifyStatus.signerNotFound)
    }

    @Test("a PSK handshake succeeds with the same key and fails with another key or identity")
    func preSharedKeys() throws {
        let key = [UInt8](repeating: 0x42, count: 32)
        func sessions(clientKey: [UInt8], identity: String) throws -> (GnuTLSSession, GnuTLSSession) {
            let server = try GnuTLSSession(.server, credentials: GnuTLSCredentials(pskServerKey: key, identity: "peerbench", priority: pskPriority))
            let client = try GnuTLSSession(.client, credentials: GnuTLSCredentials(pskIdentity: identity, key: clientKey, priority: pskPriority))
            return (client, server)
        }

        let (client, server) = try sessions(clientKey: key, identity: "peerbench")
        let ok = handshake(client: client, server: server)
        #expect(ok.client == nil && ok.server == nil, "\(String(describing: ok))")
        #expect(server.pskLookup == .keyGiven && server.pskClientIdentity == "peerbench")
        #expect(server.negotiated.isDiffieHellmanPSK && client.negotiated.isTLS13)

        var wrong = key
        wrong[31] ^= 1
        let (badClient, badServer) = try sessions(clientKey: wrong, identity: "peerbench")
        let bad = handshake(client: badClient, server: badServer)
        #expect(bad.client != nil && bad.server != nil, "\(String(describing: bad))")
        #expect(badServer.pskLookup == .keyGiven, "the key was looked up; the binder did not verify")

        let (strangerClient, strangerServer) = try sessions(clientKey: key, identity: "stranger")
        let stranger = handshake(client: strangerClient, server: strangerServer)
        #expect(stranger.client != nil && stranger.server != nil)
        #expect(strangerServer.pskLookup == .unknownIdentity)
    }

    @Test("a record crosses the session; close_notify reads as the end of the stream")
    func recordsAndBye() throws {
        let (client, server) = try certificateSessions()
        try client.verifyServer(named: "127.0.0.1")
        let (c, s) = socketPair()
        defer {
            close(c)
            close(s)
        }
        client.setTransport(fd: c)
        server.setTransport(fd: s)
        let received = Mutex<[UInt8]>([])
        let done = DispatchSemaphore(value: 0)
        Thread {
            defer { done.signal() }
            do {
                try server.handshake()
                var buffer = [UInt8](repeating: 0, count: 1_000)
                while true {
                    let n = try buffer.withUnsafeMutableBytes { b throws(GnuTLSError) in try server.receive(into: b) }
                    if n == 0 { break }
                    received.withLock { $0 += buffer[..<n] }
                }
            } catch {
                received.withLock { $0 = [] }
            }
        }.start()
        try client.handshake()
        let message = Array("hello over TLS".utf8)
        let sent = try message.withUnsafeBytes { b throws(GnuTLSError) in try client.send(b) }
        client.bye()
        done.wait()
        #expect(sent == message.count)
        #expect(received.withLock { $0 } == message)
    }

    @Test("sending to a peer that hung up is an error, not SIGPIPE (GNUTLS_NO_SIGNAL)")
    func noSignal() throws {
        let previous = signal(SIGPIPE, SIG_DFL)
        defer { signal(SIGPIPE, previous) }
        let (client, server) = try certificateSessions()
        try client.verifyServer(named: "localhost")
        let (c, s) = socketPair()
        defer { close(c) }
        client.setTransport(fd: c)
        server.setTransport(fd: s)
        let done = DispatchSemaphore(value: 0)
        Thread {
            try? server.handshake()
            close(s)
            done.signal()
        }.start()
        try client.handshake()
        done.wait()
        let record = [UInt8](repeating: 0x55, count: 1_024)
        let error = #expect(throws: GnuTLSError.self) { _ = try record.withUnsafeBytes { b throws(GnuTLSError) in try client.send(b) } }
        #expect(error?.code == .pushFailed)
    }
}

@Suite struct X509CertificateTests {
    @Test("a self-signed certificate round-trips through PEM with the same SHA-256")
    func selfSigned() throws {
        let key = try X509PrivateKey.generateECDSAP256()
        let certificate = try X509Certificate(selfSignedWith: key, commonName: "peerbench-test", validDays: 1)
        let pem = try certificate.pem()
        #expect(String(decoding: pem, as: UTF8.self).hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(String(decoding: try key.pem(), as: UTF8.self).hasPrefix("-----BEGIN EC PRIVATE KEY-----"))
        #expect(try X509Certificate(pem: pem).sha256() == (try certificate.sha256()))
        #expect(throws: GnuTLSError.self) { try X509Certificate(pem: Array("not a certificate".utf8)) }
    }
}
