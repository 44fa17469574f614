import CPeerBenchSystem
import PeerBenchPlugin
import PeerBenchSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What a netlink request ended in when it did not end in an answer.
enum NetlinkFailure: Error, CustomStringConvertible {
    /// The kernel answered with an error (`nlmsgerr.error`, a negative errno).
    case kernel(errno: Int32, request: String)
    case system(SystemError)
    case parse(NetlinkParseError)
    /// No answer within the socket's receive timeout.
    case timeout(request: String)

    var description: String {
        switch self {
        case .kernel(let e, let request): "\(request): \(String(cString: strerror(e)))"
        case .system(let e): "\(e)"
        case .parse(let e): "\(e)"
        case .timeout(let request): "\(request): no answer from the kernel"
        }
    }
}

/// A netlink socket of one protocol (NETLINK_ROUTE, NETLINK_GENERIC) in the calling
/// thread's network namespace: one request, its answer messages. Closed on deinit.
final class NetlinkSocket {
    private let socket: Socket
    private static let sequence = Atomic<UInt32>(1)

    init(protocol proto: Int32) throws(NetlinkFailure) {
        do {
            socket = try Socket(family: AF_NETLINK, type: Int32(SOCK_RAW.rawValue), protocol: proto)
            // The kernel answers at once; a lost answer must not stall a cell.
            try socket.setReceiveTimeout(nanoseconds: 2_000_000_000)
        } catch { throw .system(error) }
    }

    deinit { socket.close() }

    /// Sends one request and returns the answer's messages: for a dump every message up
    /// to NLMSG_DONE, otherwise the one reply. An NLMSG_ERROR with a non-zero code throws
    /// `.kernel`; a zero code (an acknowledgement) ends the answer.
    func request(
        _ label: String, type: UInt16, dump: Bool, fixed: [UInt8],
        attributes: [NetlinkAttribute]
    ) throws(NetlinkFailure) -> [NetlinkMessage] {
        let seq = Self.sequence.wrappingAdd(1, ordering: .relaxed).newValue
        let flags = UInt16(NLM_F_REQUEST) | (dump ? UInt16(NLM_F_DUMP) : 0)
        let bytes = NetlinkMessage.request(type: type, flags: flags, sequence: seq, fixed: fixed, attributes: attributes)
        do {
            _ = try bytes.withUnsafeBytes { buffer in try socket.send(buffer) }
        } catch { throw .system(error as? SystemError ?? SystemError("send", errno: EIO)) }

        var answer: [NetlinkMessage] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let received: Int?
            do {
                received = try buffer.withUnsafeMutableBytes { b in try socket.receive(b, flags: Int32(MSG_TRUNC)) }
            } catch { throw .system(error as? SystemError ?? SystemError("recv", errno: EIO)) }
            guard let n = received else { throw .timeout(request: label) }
            guard n <= buffer.count else { throw .parse(NetlinkParseError("\(label): a \(n)-byte answer exceeds the buffer")) }
            let messages: [NetlinkMessage]
            do { messages = try NetlinkMessage.parse(Array(buffer[0..<n])) } catch { throw .parse(error) }
            for message in messages where message.sequence == seq {
                switch Int32(message.type) {
                case NLMSG_ERROR:
                    guard message.payload.count >= 4 else { throw .parse(NetlinkParseError("\(label): short NLMSG_ERROR")) }
                    let code = Int32(bitPattern: message.payload.u32(at: 0))
                    if code != 0 { throw .kernel(errno: -code, request: label) }
                    return answer
                case NLMSG_DONE:
                    if message.payload.count >= 4 {
                        let code = Int32(bitPattern: message.payload.u32(at: 0))
                        if code < 0 { throw .kernel(errno: -code, request: label) }
                    }
                    return answer
                case NLMSG_NOOP:
                    continue
                default:
                    answer.append(message)
                    if !dump { return answer }
                }
            }
        }
    }
}
