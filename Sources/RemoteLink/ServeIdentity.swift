import GnuTLSSupport
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

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
            guard stat(key, &st) == 0 else {
                throw InputError(source: key, "serve's identity has a certificate but no key: remove \(cert) to make a new identity")
            }
            guard st.st_mode & 0o077 == 0 else {
                throw InputError(
                    source: key,
                    "serve's private key is accessible by group or others (mode \(String(st.st_mode & 0o777, radix: 8))); run `chmod 600 \(key)`")
            }
            return ServeIdentity(directory: directory, sha256: try digest(ofCertificateFile: cert), persistent: true)
        }
        if mkdir(directory, 0o700) != 0 && errno != EEXIST { throw SystemError("creating \(directory)", errno: errno) }
        return ServeIdentity(directory: directory, sha256: try make(in: directory), persistent: true)
    }

    /// Makes the key and certificate, writes both into `directory`; returns the digest.
    private static func make(in directory: String) throws -> [UInt8] {
        let certPEM: [UInt8], keyPEM: [UInt8], digest: [UInt8]
        do throws(GnuTLSError) {
            let key = try X509PrivateKey.generateECDSAP256()
            let crt = try X509Certificate(selfSignedWith: key, commonName: "peerbench-serve", validDays: validDays)
            digest = try crt.sha256()
            certPEM = try crt.pem()
            keyPEM = try key.pem()
        } catch {
            throw TransportError("serve's data-plane identity: \(error)")
        }
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
        do throws(GnuTLSError) {
            return try X509Certificate(pem: Array(text.utf8)).sha256()
        } catch {
            throw InputError(source: path, "not a PEM certificate (\(error.message)); remove it and its key to make a new identity")
        }
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
}
