internal import CGnuTLS

/// A GnuTLS call that failed: what was being done, GnuTLS's code and its message
/// (`gnutls_strerror`). Every failure of this module is one of these.
public struct GnuTLSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A GnuTLS error code; the named ones are those callers branch on.
    public struct Code: Sendable, Hashable {
        public let rawValue: Int32
        public init(_ rawValue: Int32) { self.rawValue = rawValue }

        /// The socket would block (non-blocking) or its timeout expired (blocking): try again later.
        public static let again = Code(GNUTLS_E_AGAIN)
        /// The peer's certificate did not verify (`GnuTLSSession.verifyStatus` says why).
        public static let certificateVerification = Code(GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR)
        /// The peer sent a fatal alert (`GnuTLSSession.lastAlert`).
        public static let fatalAlertReceived = Code(GNUTLS_E_FATAL_ALERT_RECEIVED)
        /// The connection ended without a close_notify.
        static let prematureTermination = Code(GNUTLS_E_PREMATURE_TERMINATION)
        /// Writing to or reading from the transport failed (the peer reset, or the socket was shut down).
        public static let pushFailed = Code(GNUTLS_E_PUSH_ERROR)
        public static let pullFailed = Code(GNUTLS_E_PULL_ERROR)
        /// What a TLS 1.3 server reports when a client's PSK binder does not verify.
        public static let receivedIllegalParameter = Code(GNUTLS_E_RECEIVED_ILLEGAL_PARAMETER)
        public static let decryptionFailed = Code(GNUTLS_E_DECRYPTION_FAILED)
        /// A file that should hold a certificate holds none.
        public static let noCertificateFound = Code(GNUTLS_E_NO_CERTIFICATE_FOUND)
    }

    /// What was being done, e.g. `loading the CA file /etc/ca.pem`.
    public let operation: String
    public let code: Code

    public init(_ operation: String, code: Int32) {
        self.operation = operation
        self.code = Code(code)
    }

    /// GnuTLS's own sentence for the code.
    public var message: String { String(cString: gnutls_strerror(code.rawValue)) }

    public var description: String { "\(operation) failed: \(message) (\(code.rawValue))" }

    /// The transport broke underneath the session: the connection is gone.
    public var isTransportFailure: Bool { code == .pushFailed || code == .pullFailed || code == .prematureTermination }

    /// Throws unless `result` is GnuTLS's success (0 or a positive count); returns it.
    @discardableResult
    static func check(_ result: Int32, _ operation: @autoclosure () -> String) throws(GnuTLSError) -> Int32 {
        if result < 0 { throw GnuTLSError(operation(), code: result) }
        return result
    }
}
