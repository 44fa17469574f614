import GnuTLSSupport
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSockets
import PeerBenchStreams
import PeerBenchSystem

/// One TLS 1.3 session over a connected TCP socket, as the plugin's `ByteStream`:
/// GnuTLS's results worded for the record. Blocking: the socket's receive/send timeouts
/// bound every call, and shutting the socket down (the runner's cancellation) makes a
/// blocked call fail at once.
final class TLSSession {
    private let tls: GnuTLSSession
    private let socket: Socket
    private let kind: GnuTLSCredentials.Kind
    let role: String
    private let expectedName: String?
    private let caFile: String?
    /// The SHA-256 the server's certificate must have (`CertificatePin`), checked after
    /// the handshake instead of the CA and name; nil = CA and name.
    private let pin: [UInt8]?

    /// A client session that verifies the server's certificate against `name`
    /// (certificate mode), or against `pin` when one is given (serve's own identity
    /// over a remote link), or authenticates with the PSK.
    init(client socket: Socket, credentials: GnuTLSCredentials, verifyName name: String, caFile: String, pin: [UInt8]? = nil) throws {
        self.socket = socket
        kind = credentials.kind
        role = "client"
        expectedName = name
        self.caFile = caFile
        self.pin = credentials.kind == .certificate ? pin : nil
        do {
            tls = try GnuTLSSession(.client, credentials: credentials)
            tls.setTransport(fd: socket.fd)
            if kind == .certificate && self.pin == nil { try tls.verifyServer(named: name) }
        } catch {
            throw TransportError("tls: \(error)")
        }
    }

    /// A server session presenting the configured identity (or accepting the PSK);
    /// with `ticketKey`, it hands out session tickets sealed with it and resumes the
    /// sessions of tickets it sealed (`sessionTickets`).
    init(server socket: Socket, credentials: GnuTLSCredentials, ticketKey: TLSSessionTicketKey? = nil) throws {
        self.socket = socket
        kind = credentials.kind
        role = "server"
        expectedName = nil
        caFile = nil
        pin = nil
        do {
            tls = try GnuTLSSession(.server, credentials: credentials)
            if let ticketKey { try tls.enableSessionTickets(key: ticketKey) }
        } catch {
            throw TransportError("tls: \(error)")
        }
        tls.setTransport(fd: socket.fd)
    }

    /// Runs the handshake. A certificate that does not verify is reported by cause:
    /// unknown CA, name mismatch, expired, ...
    func handshake() throws {
        do throws(GnuTLSError) {
            try tls.handshake()
        } catch {
            if error.code == .again { throw TransportError("tls \(role): the handshake timed out (cell deadline)") }
            if error.code == .certificateVerification { throw verificationError() }
            // A PSK server that cannot verify the client's binder just ends the
            // handshake, so the client sees no reason: name the likely one.
            let hint = kind == .psk ? " (with a pre-shared key: do both sides hold the same key and identity?)" : ""
            throw TransportError(
                "tls \(role): handshake failed: \(error.message)"
                    + (error.code == .fatalAlertReceived ? " (\(tls.lastAlert.name))" : "") + hint)
        }
        if let pin { try tls.checkPeerCertificate(pinned: pin, who: "tls client") }
    }

    /// Names the verification failure the way a user can act on it.
    private func verificationError() -> TransportError {
        let status = tls.verifyStatus
        var causes: [String] = []
        if status.signerNotFound { causes.append("unknown CA: the server's certificate was not issued by a CA in \(caFile ?? "the CA file")") }
        if status.unexpectedOwner {
            causes.append("name mismatch: the server's certificate does not name \"\(expectedName ?? "")\" (set serverName)")
        }
        if status.expired { causes.append("the server's certificate has expired (run certs/regenerate.sh)") }
        if status.notActivated { causes.append("the server's certificate is not valid yet") }
        if status.revoked { causes.append("the server's certificate is revoked") }
        if status.signerNotCA { causes.append("the certificate's issuer is not a CA") }
        if causes.isEmpty { causes.append(status.text) }
        return TransportError("tls client: the server's certificate does not verify: " + causes.joined(separator: "; "))
    }

    /// Client: offers the saved session in the handshake (call before it). A server
    /// that cannot resume it (another key, expired) makes a full handshake instead.
    func resume(with saved: ResumptionData) throws {
        do { try tls.resume(with: saved) } catch { throw TransportError("tls client: \(error)") }
    }

    /// The handshake resumed a saved session (GnuTLS's `gnutls_session_is_resumed`).
    var isResumed: Bool { tls.isResumed }

    /// Client: the server's NewSessionTicket has arrived (read past the handshake first).
    var hasReceivedSessionTicket: Bool { tls.hasReceivedSessionTicket }

    /// Client: the session to offer on the next connection.
    func resumptionData() throws -> ResumptionData {
        do { return try tls.resumptionData() } catch { throw TransportError("tls client: \(error)") }
    }

    /// Sends every byte (as many records as needed).
    func sendAll(_ buffer: UnsafeRawBufferPointer) throws {
        var off = 0
        while off < buffer.count {
            do throws(GnuTLSError) {
                off += try tls.send(UnsafeRawBufferPointer(rebasing: buffer[off...]))
            } catch {
                if error.code == .again { throw TransportError("tls \(role): send timed out (cell deadline)") }
                throw TransportError("tls: \(error)")
            }
        }
    }

    /// One record's worth of plaintext; 0 on the peer's close_notify or end of stream.
    func receive(_ buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        do throws(GnuTLSError) {
            return try tls.receive(into: buffer)
        } catch {
            if error.code == .again { throw TransportError("tls \(role): timed out waiting for data (cell deadline)") }
            throw TransportError("tls: \(error)")
        }
    }

    /// Sends close_notify (our side is done writing).
    func bye() {
        tls.bye()
    }

    /// Shuts the TCP socket down in both directions without a TLS alert: a thread
    /// blocked in GnuTLS on it (another thread's send or receive) returns at once.
    func shutdownSocket() {
        socket.shutdown()
    }

    /// The TCP socket's congestion controller (the record's `congestion_control`).
    func congestionControl() -> String? { socket.congestionControl() }

    /// What was negotiated, for `extra.tls`.
    func description() -> JSONObject {
        let n = tls.negotiated
        var o = JSONObject()
        o["version"] = JSONValue(n.version)
        o["cipher"] = JSONValue(n.cipher)
        o["group"] = JSONValue(n.group)
        o["authentication"] = .string(kind == .psk ? "psk" : pin == nil ? "x509" : "x509-pinned")
        if let summary = n.summary { o["description"] = .string(summary) }
        return o
    }
}
