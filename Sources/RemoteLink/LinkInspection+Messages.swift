import CPeerBenchSystem

/// One netlink message: the `nlmsghdr` fields and the bytes after the header.
struct NetlinkMessage: Equatable {
    var type: UInt16
    var flags: UInt16
    var sequence: UInt32
    var payload: [UInt8]

    /// Splits one `recv()` worth of bytes into messages (several per datagram in a dump).
    static func parse(_ bytes: [UInt8]) throws(NetlinkParseError) -> [NetlinkMessage] {
        var messages: [NetlinkMessage] = []
        var offset = 0
        let header = Int(pb_nlmsghdr_size)
        while bytes.count - offset >= header {
            let length = Int(bytes.u32(at: offset))
            guard length >= header, length <= bytes.count - offset else {
                throw NetlinkParseError("netlink message at byte \(offset) claims \(length) bytes, \(bytes.count - offset) remain")
            }
            messages.append(
                NetlinkMessage(
                    type: bytes.u16(at: offset + 4), flags: bytes.u16(at: offset + 6),
                    sequence: bytes.u32(at: offset + 8),
                    payload: Array(bytes[(offset + header)..<(offset + length)])))
            offset += netlinkAligned(length)
        }
        return messages
    }

    /// A request: header, a fixed family header (`rtmsg`, `ifinfomsg`, `genlmsghdr`), attributes.
    static func request(type: UInt16, flags: UInt16, sequence: UInt32, fixed: [UInt8], attributes: [NetlinkAttribute]) -> [UInt8] {
        var body = fixed
        body.append(contentsOf: [UInt8](repeating: 0, count: netlinkAligned(body.count) - body.count))
        for attribute in attributes { body.append(contentsOf: attribute.encoded()) }
        var bytes: [UInt8] = []
        bytes.appendHostOrder(UInt32(Int(pb_nlmsghdr_size) + body.count))
        bytes.appendHostOrder(type)
        bytes.appendHostOrder(flags)
        bytes.appendHostOrder(sequence)
        bytes.appendHostOrder(UInt32(0))  // nlmsg_pid: 0, the kernel fills in our port
        return bytes + body
    }
}

/// One netlink attribute (`struct nlattr`): a type and its value bytes.
struct NetlinkAttribute: Equatable {
    var type: UInt16
    var value: [UInt8]

    init(type: UInt16, value: [UInt8]) {
        self.type = type
        self.value = value
    }

    init(type: UInt16, u32: UInt32) {
        var v: [UInt8] = []
        v.appendHostOrder(u32)
        self.init(type: type, value: v)
    }

    /// A NUL-terminated string attribute (interface and family names).
    init(type: UInt16, string: String) {
        self.init(type: type, value: Array(string.utf8) + [0])
    }

    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendHostOrder(UInt16(4 + value.count))
        bytes.appendHostOrder(type)
        bytes += value
        bytes.append(contentsOf: [UInt8](repeating: 0, count: netlinkAligned(bytes.count) - bytes.count))
        return bytes
    }

    /// The attributes in `bytes` (a message's payload after its fixed header, or a nested
    /// attribute's value). The nested / byte-order flag bits are masked off the type.
    static func parse<C: Collection<UInt8>>(_ bytes: C) throws(NetlinkParseError) -> [NetlinkAttribute] {
        let bytes = Array(bytes)
        var attributes: [NetlinkAttribute] = []
        var offset = 0
        while bytes.count - offset >= 4 {
            let length = Int(bytes.u16(at: offset))
            guard length >= 4, length <= bytes.count - offset else {
                throw NetlinkParseError("netlink attribute at byte \(offset) claims \(length) bytes, \(bytes.count - offset) remain")
            }
            attributes.append(
                NetlinkAttribute(
                    type: bytes.u16(at: offset + 2) & pb_nla_type_mask,
                    value: Array(bytes[(offset + 4)..<(offset + length)])))
            offset += netlinkAligned(length)
        }
        return attributes
    }

    /// The value as an unsigned integer of the kernel's width; nil when the size is wrong.
    var u8: UInt8? { value.count >= 1 ? value[0] : nil }
    var u16: UInt16? { value.count >= 2 ? value.u16(at: 0) : nil }
    var u32: UInt32? { value.count >= 4 ? value.u32(at: 0) : nil }
    var u64: UInt64? { value.count >= 8 ? value.u64(at: 0) : nil }
    /// An 8-bit attribute the kernel stores as `s8` in a u8 (signal and noise, dBm).
    var s8: Int8? { u8.map { Int8(bitPattern: $0) } }
    var string: String? { String(decoding: value.prefix { $0 != 0 }, as: UTF8.self) }
}

extension [NetlinkAttribute] {
    /// The first attribute of a type (the kernel sends each at most once per level).
    subscript(type: UInt16) -> NetlinkAttribute? { first { $0.type == type } }
}

/// NLMSG_ALIGN / NLA_ALIGN: netlink pads messages and attributes to 4 bytes.
func netlinkAligned(_ n: Int) -> Int { (n + 3) & ~3 }

// Netlink carries integers in host byte order; these read and write them that way.
extension [UInt8] {
    func u16(at i: Int) -> UInt16 { withUnsafeBytes { $0.loadUnaligned(fromByteOffset: i, as: UInt16.self) } }
    func u32(at i: Int) -> UInt32 { withUnsafeBytes { $0.loadUnaligned(fromByteOffset: i, as: UInt32.self) } }
    func u64(at i: Int) -> UInt64 { withUnsafeBytes { $0.loadUnaligned(fromByteOffset: i, as: UInt64.self) } }

    mutating func appendHostOrder<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value) { append(contentsOf: $0) }
    }
}
