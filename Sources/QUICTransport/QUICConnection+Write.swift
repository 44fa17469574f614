import CNgtcp2

/// The write pass: ngtcp2's write loop over the scheduled streams, with the packets
/// it produces grouped by `PacketBatcher` into segmentation-offload sends.
extension QUICConnection {
    /// Sends a batch of packets of `segment` bytes each (the last may be shorter;
    /// 0 = one packet) along `path`; returns false when the socket buffer is full
    /// (the channel keeps the batch and retries when writable).
    typealias Transmit = (_ bytes: UnsafeRawBufferPointer, _ segment: Int, _ path: UnsafePointer<ngtcp2_path>) -> Bool

    /// The most packets one send system call carries (UDP_SEGMENT allows 64 and 64 KB).
    static let maxBatch = 40

    /// Writes packets (stream data, ACKs, retransmissions, handshake) until ngtcp2
    /// has nothing more, the congestion window or pacing says stop, or `maxPackets`.
    /// Equal-sized packets for the same path are sent in batches with one system call.
    // Long because the batch's send, the carrying of a packet that cannot join it and the
    // pacing epilogue share the buffer and the batcher; split, they would pass both around.
    func writePackets(now: UInt64, maxPackets: Int = 64, transmit: @escaping Transmit) {
        if isFinished { flushClose(transmit) }
        guard !isClosed, let base = packetBuffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let maxUDP = max(ngtcp2_conn_get_max_tx_udp_payload_size(conn), 1)
        let quantum = ngtcp2_conn_get_send_quantum(conn)
        let limit = max(1, min(maxPackets, quantum / maxUDP))
        var batcher = PacketBatcher(maxPackets: max(1, min(Self.maxBatch, packetBuffer.count / maxUDP)))
        var packets = 0
        defer {
            // ngtcp2 0.12 paces at cwnd / smoothed RTT, and until the first RTT sample
            // the smoothed RTT is the 333 ms default: the client's padded 1200-byte
            // Initial would hold its next packet (TLS Finished, the first probe) back
            // ~20 ms and the server's first flight its HANDSHAKE_DONE, so loopback
            // showed a 21 ms first probe and handshake_confirmed_ms near 25 ms.
            // Pace only once an RTT sample exists, as later ngtcp2 releases do (their
            // pacing interval starts at 0 until the congestion controller sets it).
            if hasRTTSample { ngtcp2_conn_update_pkt_tx_time(conn, now) }
            scheduler.pruneIdle()
        }
        func send() -> Bool {
            guard let batch = batcher.take() else { return true }
            return transmit(UnsafeRawBufferPointer(start: base, count: batch.bytes), batch.segment, UnsafePointer(batchPath.pathPointer))
        }
        /// Sends the batch without the packet just written at `out` (which cannot join it),
        /// then moves that packet to the buffer's start, where the next batch begins.
        func sendEarlierKeeping(_ out: UnsafeMutablePointer<UInt8>, _ written: Int) -> Bool {
            let carried = Array(UnsafeBufferPointer(start: out, count: written))
            if !send() { return false }
            carried.withUnsafeBufferPointer { base.update(from: $0.baseAddress!, count: written) }
            return true
        }
        while packets < limit {
            let out = base + batcher.nextOffset
            let written: Int
            switch writeOnePacket(into: out, capacity: maxUDP, now: now) {
            case .packet(let n): written = n
            case .nothing: written = 0
            case .failed(let rv):
                _ = send()
                fail(.library("writing a packet", code: rv), closeWith: .liberr(rv), transmit: transmit)
                return
            }
            if written == 0 { break }
            datagramsSent += 1
            bytesSent += written
            packets += 1
            if !batcher.isEmpty, ngtcp2_path_eq(batchPath.pathPointer, writePath.pathPointer) == 0 {
                // A packet for another path (a migration's PATH_CHALLENGE, a peer that
                // moved): the batch so far goes to its own path first.
                if !sendEarlierKeeping(out, written) { return }
            }
            if batcher.isEmpty { ngtcp2_path_copy(batchPath.pathPointer, writePath.pathPointer) }
            var step = batcher.add(written)
            if step == .sendEarlierFirst {
                // A bigger packet cannot follow smaller ones in a batch: send those first.
                if !sendEarlierKeeping(base + batcher.nextOffset, written) { return }
                step = batcher.add(written)
            }
            if step == .send, !send() { return }
        }
        _ = send()
    }

    private enum PacketResult {
        case packet(Int)
        case nothing
        case failed(Int32)
    }

    /// One QUIC packet into `out`: stream data from the scheduled streams in order
    /// (several streams may share the packet), plus whatever frames ngtcp2 adds.
    private func writeOnePacket(into out: UnsafeMutablePointer<UInt8>, capacity: Int, now: UInt64) -> PacketResult {
        var pi = ngtcp2_pkt_info()
        var index = 0
        while true {
            // Next stream with something to send, or -1 to finish the packet.
            let s = scheduler.nextPending(from: &index)
            var flags = UInt32(NGTCP2_WRITE_STREAM_FLAG_MORE)
            var count = 0
            if let s {
                let filled = s.fill(vecs, budget: capacity)
                count = filled.count
                if filled.reachesEnd && s.finQueued { flags |= UInt32(NGTCP2_WRITE_STREAM_FLAG_FIN) }
            }
            var pdatalen: ngtcp2_ssize = -1
            let n = pb_ngtcp2_conn_writev_stream(
                conn, writePath.pathPointer, &pi, out, capacity, &pdatalen, flags,
                s?.streamID ?? -1, vecs.baseAddress, count, now)
            if let s, pdatalen >= 0 {
                var total = 0
                for i in 0..<count { total += vecs[i].len }
                s.consumed(pdatalen, fin: flags & UInt32(NGTCP2_WRITE_STREAM_FLAG_FIN) != 0 && pdatalen == total)
            }
            switch n {
            case ngtcp2_ssize(NGTCP2_ERR_WRITE_MORE):
                if let s, !s.hasPending { index += 1 }
            case ngtcp2_ssize(NGTCP2_ERR_STREAM_DATA_BLOCKED):
                index += 1
            case ngtcp2_ssize(NGTCP2_ERR_STREAM_SHUT_WR), ngtcp2_ssize(NGTCP2_ERR_STREAM_NOT_FOUND):
                if let s { scheduler.remove(s.streamID) } else { index += 1 }
            case ..<0:
                return .failed(Int32(n))
            case 0:
                return .nothing
            default:
                return .packet(n)
            }
        }
    }

    /// True once ngtcp2 has measured a round trip (the first acknowledgement arrived);
    /// latched in `rttSampled`, so the write pass stops asking.
    private var hasRTTSample: Bool {
        if !rttSampled { rttSampled = stats.first_rtt_sample_ts != .max }
        return rttSampled
    }
}
