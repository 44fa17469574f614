import PeerBenchPlugin
import PeerBenchSystem
import PeerBenchWorkloads

#if canImport(Glibc)
    import Glibc
#endif

/// The server's DATA for a PULL (bulk `down` and `bidir`, docs/protocol/udp.md,
/// "Download"): DATA `seq` = 0 … count-1, `ts` = the batch's send time, in `sendmmsg`
/// batches of up to 64 as fast as the socket takes them, or paced to the plugin's
/// `rateMbps` as the client's upload is; then PUSHED {sent, bytes}.
extension UDPServerSender {
    static func pull(socket: Socket, session: UInt32, count: Int, size: Int, rateMbps: Double?) -> UDPServerSender {
        UDPServerSender("udp bulk sender") { sender in
            let sent = sendData(socket: socket, session: session, count: count, size: size, rateMbps: rateMbps, sender: sender)
            if let sent { _ = try? pushed(sent: sent, size: size, session: session).withUnsafeBytes { try socket.send($0) } }
        }
    }

    /// PUSHED {sent, bytes}: what the server handed to the kernel.
    static func pushed(sent: Int, size: Int, session: UInt32) -> [UInt8] {
        UDPDatagramHeader(type: .pushed, session: session, sequence: 0, timestamp: MonotonicClock.now()).datagram([UInt64(sent), UInt64(sent * size)])
    }

    /// Every DATA datagram; how many went, nil when the sender stopped or gave up first.
    private static func sendData(socket: Socket, session: UInt32, count: Int, size: Int, rateMbps: Double?, sender: UDPServerSender) -> Int? {
        let capacity = min(UDPClient.batch, count)
        let tx = UDPBatchSender(capacity: capacity, datagramSize: UDPDatagramHeader.size + size) { slot in
            UDPDatagramHeader(type: .data, session: session, sequence: 0, timestamp: 0).write(to: slot.baseAddress!)
            for j in UDPDatagramHeader.size..<slot.count { slot[j] = UInt8(truncatingIfNeeded: j) }
        }
        let pacer = rateMbps.map { MessageSchedule(rateMbps: $0, payloadBytes: size, start: MonotonicClock.now()) }
        var sent = 0
        while sent < count {
            var k = min(capacity, count - sent)
            if let pacer {
                // Sleep in slices so `stop()` is heard at a slow rate; spin the last one.
                let due = pacer.due(sent)
                while !sender.stopped, MonotonicClock.now() + 5_000_000 < due { MonotonicClock.sleep(until: MonotonicClock.now() + 5_000_000) }
                MessageSchedule.waitPrecisely(until: due)
                k = min(k, max(1, pacer.dueCount(at: MonotonicClock.now()) - sent))
            }
            if sender.stopped { return nil }
            let now = MonotonicClock.now()
            for i in 0..<k { UDPDatagramHeader.writeSequence(UInt64(sent + i), timestamp: now, to: tx.slot(i)) }
            do {
                try tx.send(socket, count: k)
            } catch let e as SystemError where e.errno == ECONNREFUSED {
                // An ICMP error for an earlier datagram: this batch may be short; go on,
                // the client counts what it missed.
            } catch {
                return nil  // shut down (cell cancelled) or the cell's deadline
            }
            sent += k
            sender.handed(sent)
        }
        return sent
    }
}
