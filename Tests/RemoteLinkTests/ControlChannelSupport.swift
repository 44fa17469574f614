import CPeerBenchSystem  // sockets' constants, whichever clang module ends up owning them
import Dispatch
import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem

@testable import RemoteLink

/// A TCP listener on 127.0.0.1 or ::1 (a port the kernel chooses) for the control channel tests.
final class LoopbackListener: Sendable {
    let socket: Socket
    let address: SocketAddress

    init(host: String = "127.0.0.1") throws {
        let bindTo = SocketAddress(host: host, port: 0)
        socket = try Socket(family: bindTo.family, type: Int32(SOCK_STREAM.rawValue))
        try socket.setReuseAddress()
        try socket.bind(bindTo)
        try socket.listen(backlog: 128)
        address = try socket.localAddress()
    }

    /// The next connection (waits at most 10 s).
    func acceptConnection() throws -> Socket {
        try socket.setReceiveTimeout(nanoseconds: 10_000_000_000)
        guard let s = try socket.accept() else { throw TransportError("no connection within 10 s") }
        return s
    }

    deinit { socket.close() }
}

/// Work on its own thread (blocking calls, like serve's), whose result is collected later.
final class Background<T: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<T, any Error>?

    init(_ body: @escaping @Sendable () throws -> T) {
        Thread {
            self.result = Result { try body() }
            self.done.signal()
        }.start()
    }

    /// The result; fails the wait after `seconds`.
    func value(within seconds: Double = 30) throws -> T {
        guard done.wait(timeout: .now() + seconds) == .success else { throw TransportError("background work did not finish within \(seconds) s") }
        return try result!.get()
    }

    /// The error the work ended with (nil when it succeeded).
    func error(within seconds: Double = 30) -> (any Error)? {
        do {
            _ = try value(within: seconds)
            return nil
        } catch { return error }
    }
}

func secondsSince(_ start: UInt64) -> Double { Double(MonotonicClock.elapsed(since: start)) / 1e9 }

/// A fresh key with a readable identity.
func testKey(_ identity: String = "pbc-test") throws -> PreSharedKey { try PreSharedKey.generate(identity: identity) }
