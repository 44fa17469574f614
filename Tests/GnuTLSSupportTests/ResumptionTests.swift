import Foundation
import GnuTLSSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// TLS 1.3 session tickets over a real socket pair: a server with a ticket key, a
/// client that saves the session and offers it again.
@Suite(.timeLimit(.minutes(1))) struct GnuTLSResumptionTests {
    let serverCredentials: GnuTLSCredentials
    let clientCredentials: GnuTLSCredentials

    init() throws {
        serverCredentials = try GnuTLSCredentials(
            trusting: nil, certificateFile: certs + "/server.pem",
            keyFile: certs + "/server-key.pem", priority: priority)
        clientCredentials = try GnuTLSCredentials(trusting: certs + "/ca.pem", priority: priority)
    }

    /// One connection: the handshake, then the server sends one byte, which the
    /// client reads (TLS 1.3's NewSessionTicket arrives after the handshake, before
    /// that byte). Returns both sessions.
    func connect(key: TLSSessionTicketKey?, resuming saved: ResumptionData?) throws -> (client: GnuTLSSession, server: GnuTLSSession) {
        let server = try GnuTLSSession(.server, credentials: serverCredentials)
        if let key { try server.enableSessionTickets(key: key) }
        let client = try GnuTLSSession(.client, credentials: clientCredentials)
        try client.verifyServer(named: "localhost")
        if let saved { try client.resume(with: saved) }
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
            defer { done.signal() }
            do {
                try server.handshake()
                let one: [UInt8] = [1]
                _ = try one.withUnsafeBytes { b throws(GnuTLSError) in try server.send(b) }
            } catch { serverError.withLock { $0 = error as? GnuTLSError } }
        }.start()
        try client.handshake()
        var byte = [UInt8(0)]
        let n = try byte.withUnsafeMutableBytes { b throws(GnuTLSError) in try client.receive(into: b) }
        done.wait()
        if let e = serverError.withLock({ $0 }) { throw e }
        #expect(n == 1)
        return (client, server)
    }

    @Test("a session saved after the ticket arrived resumes with the same server key; GnuTLS says so on both sides")
    func resumesWithTheSameKey() throws {
        let key = try TLSSessionTicketKey()
        let first = try connect(key: key, resuming: nil)
        #expect(first.client.hasReceivedSessionTicket)
        #expect(!first.client.isResumed && !first.server.isResumed)
        let saved = try first.client.resumptionData()
        #expect(saved.bytes.count > 32, "\(saved)")
        #expect(saved.description == "ResumptionData(\(saved.bytes.count) bytes)", "the bytes are secret")

        let second = try connect(key: key, resuming: saved)
        #expect(second.client.isResumed && second.server.isResumed)
        // A resumed handshake sends no certificate (GnuTLS restores the client's copy
        // of it from the saved session, so only the server can tell).
        #expect(first.server.sentCertificate)
        #expect(!second.server.sentCertificate)
        #expect(second.client.peerCertificateSHA256() == first.client.peerCertificateSHA256())
    }

    @Test("a ticket sealed with another key is not accepted: a full handshake instead, not an error")
    func anotherKeyFallsBackToAFullHandshake() throws {
        let first = try connect(key: try TLSSessionTicketKey(), resuming: nil)
        let saved = try first.client.resumptionData()
        let second = try connect(key: try TLSSessionTicketKey(), resuming: saved)
        #expect(!second.client.isResumed && !second.server.isResumed)
        #expect(second.server.sentCertificate)
    }

    @Test("garbage as saved session data is refused with an error naming the step")
    func garbageDataIsRefused() throws {
        let client = try GnuTLSSession(.client, credentials: clientCredentials)
        let error = #expect(throws: GnuTLSError.self) { try client.resume(with: ResumptionData(bytes: [1, 2, 3])) }
        #expect(error?.operation == "setting the saved session (3 bytes)", "\(String(describing: error))")
    }

    @Test("two ticket keys differ (each server generates its own)")
    func keysAreFresh() throws {
        let a = try TLSSessionTicketKey(), b = try TLSSessionTicketKey()
        #expect(a !== b)
        let anti = try TLSAntiReplay()
        #expect(anti.count == 0 && anti.capacity == 4096)
    }
}
