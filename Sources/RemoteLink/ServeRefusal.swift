import PeerBenchPlugin
import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// What a connection hears that serve will not take into a handshake (its address's
/// share or all slots are taken, `ServeAdmission`): one TLS alert record in the clear
/// (level fatal, `user_canceled`), which a PeerBench client reports as "busy, try
/// again" (`ControlChannelError.busy`) and any TLS client as an alert, not as a
/// connection that merely closed. No key is needed to send or to read it, and it
/// says nothing but that serve is busy.
enum ServeRefusal {
    /// Alert record: type 21, legacy version 3.3, length 2; fatal (2), user_canceled (90).
    static let busyAlert: [UInt8] = [0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x5A]
    /// How long the refusal waits for the client's ClientHello before closing.
    static let drainNanos: UInt64 = 1_000_000_000

    /// Sends the alert, shuts the sending side, and reads what the client sends (its
    /// ClientHello) until it closes or `drainNanos` pass: a socket closed with unread
    /// bytes answers with a reset, which could reach the client before the alert.
    static func refuse(_ connection: Socket) {
        defer { connection.close() }
        try? connection.setSendTimeout(nanoseconds: 100_000_000)
        guard (try? busyAlert.withUnsafeBytes({ try connection.send($0) })) != nil else { return }
        _ = try? connection.withDescriptor("shutdown") { fd in Glibc.shutdown(fd, Int32(SHUT_WR)) }
        let deadline = MonotonicClock.now() + drainNanos
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while MonotonicClock.now() < deadline {
            guard (try? connection.waitReadable(timeoutNanos: deadline - MonotonicClock.now())) == true else { return }
            let n = buffer.withUnsafeMutableBytes { b in
                (try? connection.withDescriptor("recv") { fd in recv(fd, b.baseAddress, b.count, Int32(MSG_DONTWAIT)) }) ?? -1
            }
            if n <= 0 { return }
        }
    }
}
