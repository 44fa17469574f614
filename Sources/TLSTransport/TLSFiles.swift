import Foundation
import GnuTLSSupport
import PeerBenchPlugin

/// Where the X.509 files come from: the options, else the bundled test identities in
/// `certs/` (found by `BundledCertificates`).
struct TLSFiles: Sendable {
    var ca: String
    var cert: String
    var key: String

    init(ca: String, cert: String, key: String) {
        self.ca = ca
        self.cert = cert
        self.key = key
    }

    init(_ options: TLSOptions) throws {
        func bundled(_ name: String) throws -> String {
            guard let dir = BundledCertificates.directory() else {
                throw TransportError(
                    "tls: no certs/ directory with ca.pem found (set \(BundledCertificates.environmentVariable) or the caFile/certFile/keyFile options)"
                )
            }
            return dir + "/" + name
        }
        ca = try options.caFile ?? bundled("ca.pem")
        cert = try options.certFile ?? bundled("server.pem")
        key = try options.keyFile ?? bundled("server-key.pem")
    }
}
