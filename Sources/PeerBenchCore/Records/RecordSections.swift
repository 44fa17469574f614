/// The record's sections added by schema /3 (docs/RECORDS.md): a value per end of the
/// link, the scenario's figures and the competing flow's.
extension Record {
    /// How the link changed during the cell (matrix dimension `scenarios`) and how the
    /// transport noticed and recovered. `name` and `kind` are `static` for a cell whose
    /// link does not change; every figure is then null.
    public struct Scenario: Sendable, Equatable, Codable {
        public var name: String
        public var kind: String
        /// Longest gap in bytes received during the bulk phase, ms.
        public var stallMs: Double?
        /// From the start of the event to the transport's declaring the peer dead, ms.
        public var detectMs: Double?
        /// From the link's return to the first byte received, ms.
        public var recoverMs: Double?
        /// From the link's return until throughput is back to 90 % of before, ms.
        public var recover90Ms: Double?
        /// Whether the transfer outlived the event: the client ran to the end, over the
        /// same connection or (with `reconnect`) over re-made ones.
        public var survived: Bool?
        /// Connections re-made during the cell.
        public var reconnects: Int?
        /// Bytes the receiver got while the event lasted.
        public var bytesDuringEvent: Int?
        /// From the link's return to the first byte delivered on a re-made connection, ms.
        public var reconnectMs: Double?
        /// Whether the connection that carried the workload used a resumed handshake.
        public var resumed: Bool?
        /// Messages the server received more than once (with `reconnect`).
        public var duplicates: Int?
        /// Payload bytes the client sent again after reconnecting.
        public var resentBytes: Int?
        /// Connection migrations the client made (quic's `migrate`): the same connection
        /// moved to a new local port, no new handshake (not a reconnect).
        public var migrations: Int?
        /// From the first migration to the first stream data the server acknowledged on
        /// the new path, ms, on the client's clock.
        public var migrationMs: Double?
        /// Why `reconnectMs` is null although `reconnects` >= 1 (docs/RECORDS.md); else nil.
        public var reconnectMsReason: String?

        public init(
            name: String, kind: String, stallMs: Double? = nil, detectMs: Double? = nil, recoverMs: Double? = nil,
            recover90Ms: Double? = nil, survived: Bool? = nil, reconnects: Int? = nil, bytesDuringEvent: Int? = nil
        ) {
            self.name = name
            self.kind = kind
            self.stallMs = stallMs
            self.detectMs = detectMs
            self.recoverMs = recoverMs
            self.recover90Ms = recover90Ms
            self.survived = survived
            self.reconnects = reconnects
            self.bytesDuringEvent = bytesDuringEvent
        }

        public static let `static` = Scenario(name: "static", kind: "static")

        public enum CodingKeys: String, CodingKey {
            case name, kind, stallMs = "stall_ms", detectMs = "detect_ms", recoverMs = "recover_ms", recover90Ms = "recover90_ms"
            case survived, reconnects, bytesDuringEvent = "bytes_during_event"
            case reconnectMs = "reconnect_ms", resumed, duplicates, resentBytes = "resent_bytes"
            case migrations, migrationMs = "migration_ms"
            case reconnectMsReason = "reconnect_ms_reason"
        }
    }

    /// The background flow that competed with the cell's bulk phase.
    public struct CrossTraffic: Sendable, Equatable, Codable {
        public var serviceClass: String?
        /// nil for a saturating flow (it offers as much as the link takes) or no flow.
        public var offeredMbps: Double?
        public var goodputMbps: Double?

        public init(serviceClass: String? = nil, offeredMbps: Double? = nil, goodputMbps: Double? = nil) {
            self.serviceClass = serviceClass
            self.offeredMbps = offeredMbps
            self.goodputMbps = goodputMbps
        }

        public enum CodingKeys: String, CodingKey {
            case serviceClass = "service_class", offeredMbps = "offered_mbps", goodputMbps = "goodput_mbps"
        }
    }
}
