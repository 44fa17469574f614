import Foundation
import Testing

@testable import PeerBenchCore
@testable import PeerBenchPlugin
@testable import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `Socket.close` is safe while another thread is blocked in the socket or about to
/// shut it down: the rule "never close a socket something may still shut down" is gone.
@Suite(.timeLimit(.minutes(1))) struct SocketCloseTests {
    private func boundUDP() throws -> Socket {
        let s = try Socket(family: AF_INET, type: Int32(SOCK_DGRAM.rawValue))
        try s.bind(SocketAddress(host: "127.0.0.1", port: 0))
        return s
    }

    @Test func closeWakesAThreadBlockedInReceive() async throws {
        let s = try boundUDP()
        try s.setReceiveTimeout(nanoseconds: 10_000_000_000)
        let t0 = MonotonicClock.now()
        let blocked = Task.detached { () -> Bool in
            var buffer = [UInt8](repeating: 0, count: 16)
            // Returns (or throws) once the socket is shut down; the 10 s timeout is the old behaviour.
            _ = try? buffer.withUnsafeMutableBytes { try s.receive($0) }
            return true
        }
        try await Task.sleep(nanoseconds: 200_000_000)
        s.close()
        #expect(await blocked.value)
        #expect(MonotonicClock.elapsed(since: t0) < 5_000_000_000, "close() did not wake the blocked receive")
    }

    @Test func callsAfterCloseFailWithEBADFInsteadOfTouchingAReusedDescriptor() throws {
        let s = try boundUDP()
        let number = s.fd
        s.close()
        // The kernel hands the lowest free number to the next socket: usually the same one.
        let other = try boundUDP()
        let otherPort = try other.localAddress().port
        s.shutdown()
        #expect(throws: SystemError("getsockname", errno: EBADF)) { _ = try s.localAddress() }
        #expect(throws: SystemError("setsockopt(SO_REUSEADDR)", errno: EBADF)) { try s.setReuseAddress() }
        // `other` usually got the same number; either way the old socket's calls left it alone.
        #expect(other.fd == number, "the kernel did not reuse the number; the EBADF checks above prove less")
        #expect(try other.localAddress().port == otherPort)
        #expect(!other.isClosed && s.isClosed)
    }
}
