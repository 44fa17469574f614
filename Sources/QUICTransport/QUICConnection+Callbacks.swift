import CNgtcp2
import PeerBenchPlugin
import PeerBenchSystem

/// ngtcp2's C callbacks: trampolines from the connection's user pointer back to
/// the `QUICConnection` and on to its delegate.
extension QUICConnection {
    private static func from(_ p: UnsafeMutableRawPointer?) -> QUICConnection? {
        p.map { Unmanaged<QUICConnection>.fromOpaque($0).takeUnretainedValue() }
    }

    static func installCallbacks(_ cb: inout ngtcp2_callbacks) {
        // ngtcp2 draws a few random bytes during the handshake and for PATH_CHALLENGE
        // frames. It cannot be told of a failure (getentropy does not fail once the
        // kernel's pool is initialised); the bytes then stay as ngtcp2 left them.
        cb.rand = { dest, count, _ in
            guard let dest else { return }
            try? SecureRandom.fill(UnsafeMutableRawBufferPointer(start: dest, count: count))
        }
        cb.recv_stream_data = { _, flags, streamID, _, data, datalen, user, _ in
            guard let c = QUICConnection.from(user) else { return NGTCP2_ERR_CALLBACK_FAILURE }
            return c.onStreamData(streamID, data, datalen, fin: flags & UInt32(NGTCP2_STREAM_DATA_FLAG_FIN) != 0)
        }
        cb.acked_stream_data_offset = { _, streamID, offset, datalen, user, _ in
            guard let c = QUICConnection.from(user) else { return NGTCP2_ERR_CALLBACK_FAILURE }
            c.scheduler.existing(streamID)?.acknowledged(upTo: offset + datalen)
            c.lastStreamAckAt = MonotonicClock.now()
            return 0
        }
        cb.path_validation = { _, _, _, result, user in
            // A migration's new path (client), or a migrated peer's (server): answered or not.
            QUICConnection.from(user)?.lastPathValidation = (MonotonicClock.now(), result == NGTCP2_PATH_VALIDATION_RESULT_SUCCESS)
            return 0
        }
        cb.stream_close = { _, _, streamID, _, user, _ in
            guard let c = QUICConnection.from(user) else { return NGTCP2_ERR_CALLBACK_FAILURE }
            c.scheduler.remove(streamID)
            if c.isServer, streamID & 0x3 == 0 {
                // Let the client open another bulk stream in place of this one.
                ngtcp2_conn_extend_max_streams_bidi(c.conn, 1)
            }
            c.delegate?.streamClosed(c, stream: streamID)
            return 0
        }
        cb.stream_reset = { _, _, _, _, _, _ in 0 }
        cb.handshake_completed = { _, user in
            guard let c = QUICConnection.from(user) else { return NGTCP2_ERR_CALLBACK_FAILURE }
            c.handshakeCompletedAt = MonotonicClock.now()
            c.delegate?.handshakeCompleted(c)
            return 0
        }
        cb.handshake_confirmed = { _, user in
            QUICConnection.from(user)?.handshakeConfirmedAt = MonotonicClock.now()
            return 0
        }
        cb.get_new_connection_id = { _, cid, token, cidlen, user in
            guard let cid, let token, let c = QUICConnection.from(user) else { return NGTCP2_ERR_CALLBACK_FAILURE }
            cid.pointee.datalen = cidlen
            do {
                try withUnsafeMutableBytes(of: &cid.pointee.data) { b in
                    Result { () throws(SystemError) in try SecureRandom.fill(UnsafeMutableRawBufferPointer(rebasing: b[..<cidlen])) }
                }.get()
                // Stateless reset is not used; the token only has to be unguessable.
                try SecureRandom.fill(UnsafeMutableRawBufferPointer(start: token, count: Int(NGTCP2_STATELESS_RESET_TOKENLEN)))
            } catch {
                return NGTCP2_ERR_CALLBACK_FAILURE
            }
            let bytes = QUICConnection.bytes(of: cid.pointee)
            c.localCIDs.append(bytes)
            c.delegate?.issuedConnectionID(c, bytes)
            return 0
        }
    }

    private func onStreamData(_ streamID: Int64, _ data: UnsafePointer<UInt8>?, _ len: Int, fin: Bool) -> Int32 {
        do {
            try delegate?.received(self, stream: streamID, data: UnsafeRawBufferPointer(start: data, count: len), fin: fin)
        } catch {
            callbackError = error
            return NGTCP2_ERR_CALLBACK_FAILURE
        }
        // The application consumed the bytes: give the credit back at once.
        if len > 0 {
            ngtcp2_conn_extend_max_stream_offset(conn, streamID, UInt64(len))
            ngtcp2_conn_extend_max_offset(conn, UInt64(len))
        }
        return 0
    }
}
