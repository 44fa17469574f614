import CNgtcp2
import GnuTLSSupport
import PeerBenchPlugin

/// Why a QUIC connection ended abnormally, worded for the record's `error` field:
/// each case names the thing at fault and, where it helps, what to do.
enum QUICFailure: Error, CustomStringConvertible {
    /// No handshake within the configured time (nothing answered, or packets were lost).
    case handshakeTimeout(peer: String, seconds: Double)
    /// No packet from the peer for the idle timeout.
    case idleTimeout(peer: String, seconds: Double)
    /// Our TLS stack refused the handshake and sent `alert`; `verifyStatus` says why
    /// the certificate did not verify when verification was the cause.
    case localTLS(alert: UInt8, verifyStatus: CertificateStatus, context: TLSContext)
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
            var text = "TLS alert \(alert) \(GnuTLSAlert(alert).specName)"
            if !status.isVerified {
                text += ": " + verificationProblem(status, ctx)
            } else if alert == 120 {
                text += ": the peer offers no application protocol we accept (we speak \"\(ctx.alpn)\")"
            }
            return text
        case .peerClosed(let code, let application, let reason, let ctx):
            let peer = ctx.isServer ? "client" : "server"
            if !application, code & 0xff00 == UInt64(NGTCP2_CRYPTO_ERROR) {
                let alert = UInt8(code & 0xff)
                var text = "TLS alert \(alert) \(GnuTLSAlert(alert).specName) from the \(peer)"
                switch alert {
                case 120: text += ": the \(peer) does not speak ALPN \"\(ctx.alpn)\""
                case 42, 43, 44, 45, 46, 48, 116:
                    text +=
                        ctx.isServer
                        ? ": the client rejected our certificate"
                        : ": the server rejected our client certificate (mutualTLS: check clientCertFile and the server's caFile)"
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

/// Explains why a certificate did not verify in terms of the plugin's options.
func verificationProblem(_ status: CertificateStatus, _ ctx: QUICFailure.TLSContext) -> String {
    let who = ctx.isServer ? "client certificate" : "server certificate"
    var reasons: [String] = []
    if status.signerNotFound || status.signerNotCA {
        reasons.append("\(who) not issued by the configured CA (\(ctx.caFile ?? "caFile"))")
    }
    if status.unexpectedOwner {
        reasons.append(
            "\(who) does not cover the name \"\(ctx.verifyName ?? "?")\" (set serverName to a name in the certificate, or use a certificate for this address)"
        )
    }
    if status.expired {
        reasons.append("\(who) has expired (regenerate it: certs/regenerate.sh)")
    }
    if status.notActivated {
        reasons.append("\(who) is not valid yet (check the clock)")
    }
    if status.revoked { reasons.append("\(who) is revoked") }
    if reasons.isEmpty { reasons.append("\(who): " + status.text) }
    return reasons.joined(separator: "; ")
}
