#if canImport(Glibc)
import Glibc
#endif
import CGnuTLS
import PeerBenchPlugin

/// One TLS 1.3 session authenticated by an external pre-shared key, over a connected
/// TCP socket: the control channel's cryptography. Owns the GnuTLS session and
/// credentials (and the key material GnuTLS reads through a pointer) and frees them
/// in `deinit`.
///
/// Only the (EC)DHE-PSK key exchanges are allowed (`priority`): every session gets a
/// fresh Diffie-Hellman secret, so a key that leaks later does not decrypt recorded
/// sessions. Plain PSK (psk_ke) is not offered and not accepted.
final class TLSPSKSession: @unchecked Sendable {
    // @unchecked: GnuTLS allows one thread sending while another receives on a session;
    // ControlChannel serialises senders and receivers among themselves.

    /// TLS 1.3 only; key exchange only ECDHE-PSK or DHE-PSK (in TLS 1.3 both mean
    /// psk_dhe_ke with the enabled groups).
    static let priority = "NORMAL:-VERS-ALL:+VERS-TLS1.3:-KX-ALL:+ECDHE-PSK:+DHE-PSK"

    enum Role { case client, server }
    let role: Role
    private(set) var session: gnutls_session_t?
    private var clientCredentials: gnutls_psk_client_credentials_t?
    private var serverCredentials: gnutls_psk_server_credentials_t?
    /// The server's key and identity, reached from GnuTLS's key callback through the
    /// session pointer: raw memory laid out as a `gnutls_datum_t` (the key, what the
    /// shim's `pb_tls_psk_server_key` reads) followed by a pointer to the identity as a C string.
    private var keyRecord: UnsafeMutableRawPointer?
    private var keyBytes: UnsafeMutableBufferPointer<UInt8>?
    private var identityCString: UnsafeMutablePointer<CChar>?
    static let identityOffset = MemoryLayout<gnutls_datum_t>.stride
    /// Where the key callback notes what it did (a `KeyLookup` raw value).
    static let lookupOffset = identityOffset + MemoryLayout<UnsafeMutablePointer<CChar>>.stride

    /// What the server's key callback did during the handshake.
    enum KeyLookup: Int32 {
        /// Not called: the client offered no PSK (or sent no ClientHello at all).
        case none = 0
        /// The client named another identity.
        case unknownIdentity = 1
        /// The key was handed to GnuTLS, which then checks the client's binder with it.
        case keyGiven = 2
    }

    /// What the key callback did (server side; `.none` on the client).
    var keyLookup: KeyLookup {
        guard let keyRecord else { return .none }
        return KeyLookup(rawValue: keyRecord.load(fromByteOffset: Self.lookupOffset, as: Int32.self)) ?? .none
    }

    init(role: Role, fd: Int32, key: PreSharedKey, priority: String = TLSPSKSession.priority) throws(ControlChannelError) {
        self.role = role
        // GNUTLS_NO_SIGNAL: GnuTLS writes with MSG_NOSIGNAL, so writing to a peer that hung
        // up is an error here, not a SIGPIPE that ends a process which did not ignore it.
        let flags = (role == .client ? GNUTLS_CLIENT.rawValue : GNUTLS_SERVER.rawValue) | GNUTLS_NO_SIGNAL.rawValue
        try check("gnutls_init", gnutls_init(&session, UInt32(flags)))
        var errorPosition: UnsafePointer<CChar>?
        try check("gnutls_priority_set_direct", gnutls_priority_set_direct(session, priority, &errorPosition))
        switch role {
        case .client:
            try check("gnutls_psk_allocate_client_credentials", gnutls_psk_allocate_client_credentials(&clientCredentials))
            var bytes = key.bytes
            // GnuTLS copies the identity and the key.
            let r = bytes.withUnsafeMutableBytes { b in
                var datum = gnutls_datum_t(data: b.baseAddress!.assumingMemoryBound(to: UInt8.self), size: UInt32(b.count))
                return gnutls_psk_set_client_credentials(clientCredentials, key.identity, &datum, GNUTLS_PSK_KEY_RAW)
            }
            try check("gnutls_psk_set_client_credentials", r)
            try check("gnutls_credentials_set", gnutls_credentials_set(session, GNUTLS_CRD_PSK, UnsafeMutableRawPointer(clientCredentials)))
        case .server:
            try check("gnutls_psk_allocate_server_credentials", gnutls_psk_allocate_server_credentials(&serverCredentials))
            gnutls_psk_set_server_credentials_function(serverCredentials, serverKey)
            let bytes = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: key.bytes.count)
            _ = bytes.initialize(from: key.bytes)
            keyBytes = bytes
            identityCString = strdup(key.identity)
            let record = UnsafeMutableRawPointer.allocate(byteCount: Self.lookupOffset + MemoryLayout<Int32>.stride, alignment: 16)
            record.storeBytes(of: gnutls_datum_t(data: bytes.baseAddress, size: UInt32(bytes.count)), as: gnutls_datum_t.self)
            record.storeBytes(of: identityCString!, toByteOffset: Self.identityOffset, as: UnsafeMutablePointer<CChar>.self)
            record.storeBytes(of: KeyLookup.none.rawValue, toByteOffset: Self.lookupOffset, as: Int32.self)
            keyRecord = record
            gnutls_session_set_ptr(session, record)
            try check("gnutls_credentials_set", gnutls_credentials_set(session, GNUTLS_CRD_PSK, UnsafeMutableRawPointer(serverCredentials)))
        }
        pb_tls_transport_set_fd(session, fd)
    }

    deinit {
        if let session { gnutls_deinit(session) }
        if let clientCredentials { gnutls_psk_free_client_credentials(clientCredentials) }
        if let serverCredentials { gnutls_psk_free_server_credentials(serverCredentials) }
        keyRecord?.deallocate()
        if let keyBytes {
            // The key does not linger in freed memory.
            keyBytes.update(repeating: 0)
            keyBytes.deallocate()
        }
        free(identityCString)
    }

    /// The negotiated protocol version, key exchange, cipher and group, by GnuTLS's names.
    var negotiated: ControlChannel.Negotiated {
        func name(_ p: UnsafePointer<CChar>?) -> String { p.map { String(cString: $0) } ?? "unknown" }
        return ControlChannel.Negotiated(
            version: name(gnutls_protocol_get_name(gnutls_protocol_get_version(session))),
            keyExchange: name(gnutls_kx_get_name(gnutls_kx_get(session))),
            cipher: name(gnutls_cipher_get_name(gnutls_cipher_get(session))),
            group: name(gnutls_group_get_name(gnutls_group_get(session))),
            isTLS13: gnutls_protocol_get_version(session) == GNUTLS_TLS1_3,
            isDiffieHellmanPSK: [GNUTLS_KX_ECDHE_PSK, GNUTLS_KX_DHE_PSK].contains(gnutls_kx_get(session)))
    }

    /// The identity the client named (server side, after the handshake).
    var clientIdentity: String? {
        gnutls_psk_server_get_username(session).map { String(cString: $0) }
    }
}

/// GnuTLS asks the server for the key of the identity the client named. Only the
/// configured identity has one; for any other the handshake fails like a wrong key.
private func serverKey(_ session: gnutls_session_t?, _ username: UnsafePointer<CChar>?,
                       _ key: UnsafeMutablePointer<gnutls_datum_t>?) -> Int32 {
    guard let session, let username, let record = gnutls_session_get_ptr(session) else { return -1 }
    let identity = record.load(fromByteOffset: TLSPSKSession.identityOffset, as: UnsafeMutablePointer<CChar>.self)
    guard strcmp(identity, username) == 0 else {
        record.storeBytes(of: TLSPSKSession.KeyLookup.unknownIdentity.rawValue, toByteOffset: TLSPSKSession.lookupOffset, as: Int32.self)
        return -1
    }
    record.storeBytes(of: TLSPSKSession.KeyLookup.keyGiven.rawValue, toByteOffset: TLSPSKSession.lookupOffset, as: Int32.self)
    // The shim copies the key into memory from gnutls_malloc (GnuTLS frees it).
    return pb_tls_psk_server_key(session, username, key)
}

/// Throws unless `code` is GnuTLS's success (0 or a positive count).
@inline(__always)
func check(_ function: String, _ code: Int32) throws(ControlChannelError) {
    if code < 0 { throw .failed("\(function) failed: \(String(cString: gnutls_strerror(code))) (\(code))") }
}
