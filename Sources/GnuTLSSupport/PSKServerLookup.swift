internal import CGnuTLS

#if canImport(Glibc)
    import Glibc
#endif

/// What a PSK server's key callback did during a handshake.
public enum PSKLookup: Int32, Sendable {
    /// Not called: the client offered no PSK (or sent no ClientHello at all).
    case none = 0
    /// The client named another identity than the one the key belongs to.
    case unknownIdentity = 1
    /// The key was handed to GnuTLS, which then checks the client's binder with it.
    case keyGiven = 2
}

/// A PSK server session's key record, which GnuTLS's key callback reaches through the
/// session's user pointer. Raw memory laid out as a `gnutls_datum_t` (the key: what the
/// shim's `pb_tls_psk_server_key` reads), then the identity's C string (or NULL: any),
/// then the lookup's outcome. The key and identity belong to the credentials, which
/// the session keeps alive; the record belongs to the session.
final class PSKServerLookup {
    static let identityOffset = MemoryLayout<gnutls_datum_t>.stride
    static let outcomeOffset = identityOffset + MemoryLayout<UnsafeMutablePointer<CChar>?>.stride
    let record: UnsafeMutableRawPointer

    init(key: UnsafeMutableBufferPointer<UInt8>, identity: UnsafeMutablePointer<CChar>?) {
        record = .allocate(byteCount: Self.outcomeOffset + MemoryLayout<Int32>.stride, alignment: 16)
        record.storeBytes(of: gnutls_datum_t(data: key.baseAddress, size: UInt32(key.count)), as: gnutls_datum_t.self)
        record.storeBytes(of: identity, toByteOffset: Self.identityOffset, as: UnsafeMutablePointer<CChar>?.self)
        record.storeBytes(of: PSKLookup.none.rawValue, toByteOffset: Self.outcomeOffset, as: Int32.self)
    }

    deinit { record.deallocate() }

    var outcome: PSKLookup {
        PSKLookup(rawValue: record.load(fromByteOffset: Self.outcomeOffset, as: Int32.self)) ?? .none
    }
}

/// GnuTLS asks a PSK server for the key of the identity the client named: only the
/// configured identity (or any, when none is configured) has one.
func pskServerKeyCallback(
    _ session: gnutls_session_t?, _ username: UnsafePointer<CChar>?,
    _ key: UnsafeMutablePointer<gnutls_datum_t>?
) -> Int32 {
    guard let session, let username, let record = gnutls_session_get_ptr(session) else { return -1 }
    let identity = record.load(fromByteOffset: PSKServerLookup.identityOffset, as: UnsafeMutablePointer<CChar>?.self)
    if let identity, strcmp(identity, username) != 0 {
        record.storeBytes(of: PSKLookup.unknownIdentity.rawValue, toByteOffset: PSKServerLookup.outcomeOffset, as: Int32.self)
        return -1
    }
    record.storeBytes(of: PSKLookup.keyGiven.rawValue, toByteOffset: PSKServerLookup.outcomeOffset, as: Int32.self)
    // The shim copies the key into memory from gnutls_malloc (GnuTLS frees it).
    return pb_tls_psk_server_key(session, username, key)
}
