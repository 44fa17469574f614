import CGnuTLS
import PeerBenchPlugin

/// A failed GnuTLS call: which one, GnuTLS's own message and its code.
func gnutlsError(_ function: String, _ code: Int32) -> TransportError {
    TransportError("tls: \(function) failed: \(String(cString: gnutls_strerror(code))) (\(code))")
}

/// Throws unless `code` is GnuTLS's success (0 or a positive count).
@inline(__always)
func check(_ function: String, _ code: Int32) throws {
    if code < 0 { throw gnutlsError(function, code) }
}
