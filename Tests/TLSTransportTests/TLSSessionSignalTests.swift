import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import Synchronization
import Testing

@testable import TLSTransport

#if canImport(Glibc)
    import Glibc
#endif

/// A process that uses the TLS plugin need not ignore SIGPIPE: a record sent to a peer
/// that hung up is an error. (Without GNUTLS_NO_SIGNAL this test ends the test
/// process by SIGPIPE.)
@Suite(.timeLimit(.minutes(1))) struct TLSSessionSignalTests {
    @Test func sendingToAPeerThatHungUpThrowsInsteadOfRaisingSIGPIPE() throws {
        let previous = signal(SIGPIPE, SIG_DFL)
        defer { signal(SIGPIPE, previous) }
        let options = TLSOptions()
        let files = try TLSFiles(options)
        let listener = try Socket(family: AF_INET, type: Int32(SOCK_STREAM.rawValue))
        defer { listener.close() }
        try listener.bind(SocketAddress(host: "127.0.0.1", port: 0))
        try listener.listen()
        let address = try listener.localAddress()
        let serverCredentials = try TLSCredentials.server(options, files: files)
        let serverDone = DispatchSemaphore(value: 0)
        let serverError = Mutex<String?>(nil)
        Thread {
            defer { serverDone.signal() }
            do {
                guard let s = try listener.accept() else { return }
                defer { s.close() }  // hangs up without a close_notify
                try TLSSession(server: s, credentials: serverCredentials).handshake()
            } catch { serverError.withLock { $0 = "\(error)" } }
        }.start()

        let client = try Socket(family: AF_INET, type: Int32(SOCK_STREAM.rawValue))
        defer { client.close() }
        try client.connect(address)
        let session = try TLSSession(
            client: client, credentials: try TLSCredentials.client(options, files: files),
            verifyName: address.host, caFile: files.ca)
        try session.handshake()
        serverDone.wait()
        #expect(serverError.withLock { $0 } == nil)
        // The first record after the hang-up still reaches the kernel and draws the
        // peer's RST; a later one fails with EPIPE, which must come back as an error.
        let record = [UInt8](repeating: 0x55, count: 1_024)
        var failure: (any Error)?
        for _ in 0..<200 where failure == nil {
            do { try record.withUnsafeBytes { try session.sendAll($0) } } catch { failure = error }
            usleep(5_000)
        }
        #expect(failure != nil, "200 records to a closed peer all went out")
    }
}
