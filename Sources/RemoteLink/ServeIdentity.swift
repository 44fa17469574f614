#if canImport(Glibc)
import Glibc
#endif
import CGnuTLS
public import PeerBenchPlugin

/// `serve`'s own data-plane identity (issue 24, finding 4): an ECDSA P-256 key and a
/// self-signed certificate. By default a fresh one each time serve starts, in a private
/// folder (mode 700, files 600) that serve removes when it ends; with `serve --identity
/// DIR`, made once in DIR and loaded from it afterwards, so its fingerprint stays the
/// same across restarts. quic and tls cells present it instead of the bundled
/// `certs/server.pem`, whose key (and the CA's) anyone can read in the repository; its
/// SHA-256 travels to the client in SERVER_READY, inside the PSK-authenticated control
/// channel, and the client checks the handshake's certificate against it
/// (`CertificatePin`).
public final class ServeIdentity: Sendable {
    public let certFile: String
    public let keyFile: String
    /// SHA-256 of the certificate's DER encoding.
    public let sha256: [UInt8]
    private let directory: String
    /// Kept by `remove()` (made with `--identity DIR`).
    private let persistent: Bool

    /// How long a certificate is valid from when it was made.
    static let validDays = 365

    private init(directory: String, sha256: [UInt8], persistent: Bool) {
        self.directory = directory
        certFile = Self.certPath(directory)
        keyFile = Self.keyPath(directory)
        self.sha256 = sha256
        self.persistent = persistent
    }

    static func certPath(_ directory: String) -> String { directory + "/serve-cert.pem" }
    static func keyPath(_ directory: String) -> String { directory + "/serve-key.pem" }

    /// Makes a fresh identity in a new private folder under `parent` (the system's
    /// temporary folder by default); `remove()` deletes it.
    public static func generate(in parent: String = "/tmp") throws -> ServeIdentity {
        var template = Array((parent + "/peerbench-serve-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw SystemError("mkdtemp in \(parent)", errno: errno) }
        let directory = String(cString: made)
        do {
            return ServeIdentity(directory: directory, sha256: try make(in: directory), persistent: false)
        } catch {
            unlink(certPath(directory))
            unlink(keyPath(directory))
            rmdir(directory)
            throw error
        }
    }

    /// The identity kept in `directory`: loaded when it holds one (its key must be
    /// private, like a pre-shared key file), else made there (the folder is created
    /// mode 700 when missing). Bad files are named in the error.
    public static func loadOrCreate(in directory: String) throws -> ServeIdentity {
        let cert = certPath(directory), key = keyPath(directory)
        if access(cert, F_OK) == 0 || access(key, F_OK) == 0 {
            var st = stat()
            guard stat(key, &st) == 0 else { throw InputError(source: key, "serve's identity has a certificate but no key: remove \(cert) to make a new identity") }
            guard st.st_mode & 0o077 == 0 else {
                throw InputError(source: key, "serve's private key is accessible by group or others (mode \(String(st.st_mode & 0o777, radix: 8))); run `chmod 600 \(key)`")
            }
            return ServeIdentity(directory: directory, sha256: try digest(ofCertificateFile: cert), persistent: true)
        }
        if mkdir(directory, 0o700) != 0 && errno != EEXIST { throw SystemError("creating \(directory)", errno: errno) }
        return ServeIdentity(directory: directory, sha256: try make(in: directory), persistent: true)
    }

    /// Makes the key and certificate, writes both into `directory`; returns the digest.
    private static func make(in directory: String) throws -> [UInt8] {
        var key: gnutls_x509_privkey_t?
        var crt: gnutls_x509_crt_t?
        defer {
            if let key { gnutls_x509_privkey_deinit(key) }
            if let crt { gnutls_x509_crt_deinit(crt) }
        }
        try gnutls("gnutls_x509_privkey_init", gnutls_x509_privkey_init(&key))
        try gnutls("generating serve's key", gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA, 256, 0))
        try gnutls("gnutls_x509_crt_init", gnutls_x509_crt_init(&crt))
        try gnutls("certificate version", gnutls_x509_crt_set_version(crt, 3))
        var serial = [UInt8](repeating: 0, count: 16)
        try gnutls("certificate serial", gnutls_rnd(GNUTLS_RND_NONCE, &serial, serial.count))
        serial[0] &= 0x7f  // a positive integer
        try gnutls("certificate serial", gnutls_x509_crt_set_serial(crt, serial, serial.count))
        let now = time(nil)
        try gnutls("certificate start", gnutls_x509_crt_set_activation_time(crt, now - 3_600))
        try gnutls("certificate end", gnutls_x509_crt_set_expiration_time(crt, now + time_t(validDays * 86_400)))
        let name = "peerbench-serve"
        try gnutls("certificate name", gnutls_x509_crt_set_dn_by_oid(crt, "2.5.4.3", 0, name, UInt32(name.utf8.count)))
        try gnutls("certificate key", gnutls_x509_crt_set_key(crt, key))
        try gnutls("certificate constraints", gnutls_x509_crt_set_basic_constraints(crt, 0, -1))
        try gnutls("certificate key usage", gnutls_x509_crt_set_key_usage(crt, UInt32(GNUTLS_KEY_DIGITAL_SIGNATURE)))
        try gnutls("signing serve's certificate", gnutls_x509_crt_sign2(crt, crt, key, GNUTLS_DIG_SHA256, 0))

        var digest = [UInt8](repeating: 0, count: CertificatePin.length)
        var size = digest.count
        try gnutls("certificate digest", gnutls_x509_crt_get_fingerprint(crt, GNUTLS_DIG_SHA256, &digest, &size))
        guard size == CertificatePin.length else { throw TransportError("serve's certificate digest has \(size) bytes, expected 32") }

        let certPEM = try export("exporting serve's certificate") { gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &$0) }
        let keyPEM = try export("exporting serve's key") { gnutls_x509_privkey_export2(key, GNUTLS_X509_FMT_PEM, &$0) }
        // The key first: a certificate without its key is never left behind alone.
        try PrivateFile.create(keyPath(directory), bytes: keyPEM, noun: "serve's private key", kept: "an identity")
        try PrivateFile.create(certPath(directory), bytes: certPEM, noun: "serve's certificate", kept: "an identity")
        return digest
    }

    /// The SHA-256 of a PEM certificate file's DER encoding.
    private static func digest(ofCertificateFile path: String) throws -> [UInt8] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw InputError(source: path, "cannot read serve's certificate")
        }
        var crt: gnutls_x509_crt_t?
        defer { if let crt { gnutls_x509_crt_deinit(crt) } }
        try gnutls("gnutls_x509_crt_init", gnutls_x509_crt_init(&crt))
        var bytes = Array(text.utf8)
        let imported = bytes.withUnsafeMutableBufferPointer { b in
            var datum = gnutls_datum_t(data: b.baseAddress, size: UInt32(b.count))
            return gnutls_x509_crt_import(crt, &datum, GNUTLS_X509_FMT_PEM)
        }
        guard imported >= 0 else {
            throw InputError(source: path, "not a PEM certificate (\(String(cString: gnutls_strerror(imported)))); remove it and its key to make a new identity")
        }
        var digest = [UInt8](repeating: 0, count: CertificatePin.length)
        var size = digest.count
        try gnutls("certificate digest", gnutls_x509_crt_get_fingerprint(crt, GNUTLS_DIG_SHA256, &digest, &size))
        return digest
    }

    /// Removes a fresh identity's folder and its two files; keeps one made with
    /// `--identity DIR`. Idempotent.
    public func remove() {
        guard !persistent else { return }
        unlink(certFile)
        unlink(keyFile)
        rmdir(directory)
    }

    deinit { remove() }

    /// The digest as 64 hex digits, as SERVER_READY carries it.
    public var sha256Hex: String { CertificatePin.hex(sha256) }

    private static func gnutls(_ what: String, _ code: Int32) throws {
        guard code >= 0 else { throw TransportError("serve's data-plane identity: \(what): \(String(cString: gnutls_strerror(code)))") }
    }

    private static func export(_ what: String, _ body: (inout gnutls_datum_t) -> Int32) throws -> [UInt8] {
        var datum = gnutls_datum_t()
        try gnutls(what, body(&datum))
        defer { pb_tls_free(datum.data) }
        return Array(UnsafeBufferPointer(start: datum.data, count: Int(datum.size)))
    }
}
