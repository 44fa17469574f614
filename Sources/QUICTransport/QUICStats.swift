import CNgtcp2
import PeerBenchJSON
import PeerBenchPlugin

/// `extra.quic` of a record: ngtcp2's connection statistics and handshake timings.
enum QUICStats {
    static func record(_ c: QUICConnection, start: UInt64, report: ReportBody, config: QUICConfiguration) -> JSONObject {
        let s = c.stats
        let tls = c.tls.negotiated
        func ms(_ ns: UInt64) -> JSONValue { .number(Double(ns) / 1e6) }
        var o = JSONObject()
        o["alpn"] = JSONValue(tls.alpn)
        o["tls_cipher"] = JSONValue(tls.cipher)
        o["tls_group"] = JSONValue(tls.group)
        o["streams"] = .string(config.streams.rawValue)
        // How the server's certificate was checked: the CA and a name, or serve's pinned digest.
        o["authentication"] = .string(config.certificatePin == nil ? "x509" : "x509-pinned")
        o["handshake_completed_ms"] = c.handshakeCompletedAt.map { ms($0 - start) } ?? .null
        o["handshake_confirmed_ms"] = c.handshakeConfirmedAt.map { ms($0 - start) } ?? .null
        o["smoothed_rtt_ms"] = ms(s.smoothed_rtt)
        o["min_rtt_ms"] = ms(s.min_rtt)
        o["latest_rtt_ms"] = ms(s.latest_rtt)
        o["rttvar_ms"] = ms(s.rttvar)
        o["cwnd_bytes"] = JSONValue(s.cwnd)
        o["ssthresh_bytes"] = s.ssthresh == .max ? .null : JSONValue(s.ssthresh)
        o["bytes_in_flight"] = JSONValue(s.bytes_in_flight)
        o["pto_count"] = JSONValue(s.pto_count)
        o["delivery_rate_bytes_per_s"] = JSONValue(s.delivery_rate_sec)
        o["max_udp_payload_bytes"] = JSONValue(s.max_tx_udp_payload_size)
        // ngtcp2 0.12's ngtcp2_conn_stat has no loss or retransmission counters.
        o["lost_packets"] = .null
        o["retransmitted_packets"] = .null
        o["datagrams_sent"] = JSONValue(c.datagramsSent)
        o["datagrams_received"] = JSONValue(c.datagramsReceived)
        o["udp_bytes_sent"] = JSONValue(c.bytesSent)
        o["udp_bytes_received"] = JSONValue(c.bytesReceived)
        o["server_receive_ms"] = ms(report.receiveNanos)
        o["server_bulk_streams"] = JSONValue(report.streams)
        return o
    }
}
