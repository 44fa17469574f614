import CNgtcp2
import GnuTLSSupport
import PeerBenchPlugin
import PeerBenchSystem

/// `resumption` and `zeroRTT` for the client (docs/protocol/quic.md): the priming
/// connection that saves a session, and the early data a resumed connection sends.
extension QUICClient {
    /// 0-RTT (`zeroRTT`): within the server's remembered transport parameters, HELLO and
    /// one PING (`earlyProbeSeq`) go out as early data with the ClientHello, so the
    /// server can answer before the handshake completes.
    func queueEarlyData(on connection: QUICConnection, serverParameters: [UInt8], greeting: ControlFrame) throws {
        let rv = serverParameters.withUnsafeBufferPointer {
            pb_ngtcp2_conn_set_early_remote_transport_params(connection.conn, $0.baseAddress, $0.count)
        }
        guard rv == 0 else { throw QUICFailure.library("restoring the server's transport parameters for 0-RTT", code: rv) }
        let control = try openControlStream(on: connection)
        connection.sender(control).append(copying: FrameEncoder.encode(greeting))
        connection.sender(control).append(copying: FrameEncoder.encode(.ping(Self.earlyProbeSeq)))
        setup.helloQueued = true
        setup.earlyDataAttempted = true
    }

    /// The priming connection (`resumption`, docs/protocol/quic.md): a full handshake,
    /// PROBE_HELLO and one PING; once its PONG is in (the server's NewSessionTicket comes
    /// with its handshake completion, before the PONG), the session and the server's
    /// transport parameters are saved in the store, and the connection closes cleanly.
    /// Returns the handshake time.
    func prime() throws -> UInt64 {
        guard let store = resumption.store else { return 0 }
        cancellation.register(channel.socket)
        cancellation.onCancel { [waker = channel.waker] in waker.wake() }
        defer { cancellation.unregister(channel.socket) }
        do {
            let (connection, start) = try handshake()
            let control = try openControlStream(on: connection)
            connection.sender(control).append(copying: FrameEncoder.encode(.probeHello(token)))
            connection.sender(control).append(copying: FrameEncoder.encode(.ping(0)))
            try pump("priming connection") { self.log.pongs[0] != nil }
            guard connection.tls.hasReceivedSessionTicket else {
                throw QUICFailure.protocolViolation("the server sent no session ticket on the priming connection")
            }
            let session: ResumptionData
            do { session = try connection.tls.resumptionData() } catch {
                throw QUICFailure.protocolViolation("the primed session cannot be saved: \(error)")
            }
            store.save(QUICResumptionTicket(session: session, transportParameters: try Self.remoteTransportParameters(connection)))
            connection.close(.application(ApplicationError.noError, ""), transmit: transmit)
            dropConnection()
            return (connection.handshakeCompletedAt ?? start) - start
        } catch {
            if let c = connection, !c.isFinished {
                c.close(.application(ApplicationError.aborted, "client gave up: \(error)"), transmit: transmit)
            }
            dropConnection()
            throw error
        }
    }

    /// The server's transport parameters as ngtcp2 received them, encoded.
    private static func remoteTransportParameters(_ connection: QUICConnection) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 512)
        let n = buffer.withUnsafeMutableBufferPointer { pb_ngtcp2_encode_remote_transport_params(connection.conn, $0.baseAddress, $0.count) }
        guard n > 0 else { throw QUICFailure.library("saving the server's transport parameters", code: Int32(n)) }
        return Array(buffer.prefix(Int(n)))
    }
}
