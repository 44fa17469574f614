import CNgtcp2
import PeerBenchPlugin

/// Why a QUIC connection ended abnormally, worded for the record's `error` field:
/// each case names the thing at fault and, where it helps, what to do.
enum QUICFailure: Error, CustomStringConvertible {
    /// No handshake within the configured time (nothing answered, or packets were lost).
    case handshakeTimeout(peer: String, seconds: Double)
    /// No packet from the peer for the idle timeout.
    case idleTimeout(peer: String, seconds: Double)
    /// Our TLS stack refused the handshake and sent `alert`; `verifyStatus` holds
    /// GnuTLS's certificate verification bits when verification was the cause.
    case localTLS(alert: UInt8, verifyStatus: UInt32, context: TLSContext)
    /// The peer closed the connection with an error.
    case peerClosed(code: UInt64, application: Bool, reason: String, context: TLSContext)
    /// The peer broke docs/protocol/quic.md.
    case protocolViolation(String)
    /// The server refused a connection that is not the cell's client (docs/protocol/quic.md §4).
    case notThisCell(String)
    /// ngtcp2 reported a connection error.
    case library(String, code: Int32)
    /// The cell's deadline passed.
    case deadline(phase: String)
    case cancelled(phase: String)

    /// What a message needs to know to name the culprit files and names.
    struct TLSContext {
        var isServer: Bool
        var caFile: String?
        var verifyName: String?
        var alpn: String
    }

    var description: String {
        switch self {
        case .handshakeTimeout(let peer, let s):
            return "QUIC handshake with \(peer) did not complete within \(fmt(s)) s (handshakeTimeoutSeconds): no answer from a QUIC server there"
        case .idleTimeout(let peer, let s):
            return "QUIC connection to \(peer) idle for \(fmt(s)) s (idleTimeoutSeconds): the peer stopped answering"
        case .localTLS(let alert, let status, let ctx):
            var text = "TLS alert \(alert) \(tlsAlertName(alert))"
            if status != 0 {
                text += ": " + verificationProblem(status, ctx)
            } else if alert == 120 {
                text += ": the peer offers no application protocol we accept (we speak \"\(ctx.alpn)\")"
            }
            return text
        case .peerClosed(let code, let application, let reason, let ctx):
            let peer = ctx.isServer ? "client" : "server"
            if !application, code & 0xff00 == UInt64(NGTCP2_CRYPTO_ERROR) {
                let alert = UInt8(code & 0xff)
                var text = "TLS alert \(alert) \(tlsAlertName(alert)) from the \(peer)"
                switch alert {
                case 120: text += ": the \(peer) does not speak ALPN \"\(ctx.alpn)\""
                case 42, 43, 44, 45, 46, 48, 116:
                    text += ctx.isServer ? ": the client rejected our certificate" : ": the server rejected our client certificate (mutualTLS: check clientCertFile and the server's caFile)"
                default: break
                }
                return text + (reason.isEmpty ? "" : " (\(reason))")
            }
            if application, code == ApplicationError.notThisCell, !ctx.isServer {
                return "the server refused this client as not the cell's own (application error 0x3: \(reason)): "
                    + "client and server derive the HELLO token from the cell id, repetition and seed and must agree"
            }
            let kind = application ? "application error" : "transport error"
            return "the \(peer) closed the QUIC connection with \(kind) 0x\(String(code, radix: 16))" + (reason.isEmpty ? "" : ": \(reason)")
        case .protocolViolation(let what):
            return "PeerBench QUIC protocol violation: \(what)"
        case .notThisCell(let what):
            return "refused a QUIC connection: \(what)"
        case .library(let what, let code):
            return "\(what): \(String(cString: ngtcp2_strerror(code))) (ngtcp2 \(code))"
        case .deadline(let phase):
            return "cell deadline reached during the \(phase)"
        case .cancelled(let phase):
            return "cancelled during the \(phase)"
        }
    }

    private func fmt(_ s: Double) -> String { s == s.rounded() ? String(Int(s)) : String(s) }
}

/// Explains GnuTLS verification status bits in terms of the plugin's options.
func verificationProblem(_ status: UInt32, _ ctx: QUICFailure.TLSContext) -> String {
    let who = ctx.isServer ? "client certificate" : "server certificate"
    var reasons: [String] = []
    if status & GNUTLS_CERT_SIGNER_NOT_FOUND.rawValue != 0 || status & GNUTLS_CERT_SIGNER_NOT_CA.rawValue != 0 {
        reasons.append("\(who) not issued by the configured CA (\(ctx.caFile ?? "caFile"))")
    }
    if status & GNUTLS_CERT_UNEXPECTED_OWNER.rawValue != 0 {
        reasons.append("\(who) does not cover the name \"\(ctx.verifyName ?? "?")\" (set serverName to a name in the certificate, or use a certificate for this address)")
    }
    if status & GNUTLS_CERT_EXPIRED.rawValue != 0 {
        reasons.append("\(who) has expired (regenerate it: certs/regenerate.sh)")
    }
    if status & GNUTLS_CERT_NOT_ACTIVATED.rawValue != 0 {
        reasons.append("\(who) is not valid yet (check the clock)")
    }
    if status & GNUTLS_CERT_REVOKED.rawValue != 0 { reasons.append("\(who) is revoked") }
    if reasons.isEmpty {
        var out = gnutls_datum_t()
        if gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &out, 0) == 0, let d = out.data {
            reasons.append("\(who): " + String(cString: UnsafeRawPointer(d).assumingMemoryBound(to: CChar.self)))
            pb_gnutls_free(d)
        } else {
            reasons.append("\(who) failed verification (status 0x\(String(status, radix: 16)))")
        }
    }
    return reasons.joined(separator: "; ")
}

/// RFC 8446 alert names (with GnuTLS's wording as the fallback).
func tlsAlertName(_ alert: UInt8) -> String {
    switch alert {
    case 0: return "close notify"
    case 10: return "unexpected message"
    case 40: return "handshake failure"
    case 42: return "bad certificate"
    case 43: return "unsupported certificate"
    case 44: return "certificate revoked"
    case 45: return "certificate expired"
    case 46: return "certificate unknown"
    case 47: return "illegal parameter"
    case 48: return "unknown CA"
    case 50: return "decode error"
    case 51: return "decrypt error"
    case 70: return "protocol version"
    case 80: return "internal error"
    case 109: return "missing extension"
    case 110: return "unsupported extension"
    case 112: return "unrecognized name"
    case 116: return "certificate required"
    case 120: return "no application protocol"
    default:
        return gnutls_alert_get_strname(gnutls_alert_description_t(UInt32(alert))).map { String(cString: $0) } ?? "unknown alert"
    }
}
