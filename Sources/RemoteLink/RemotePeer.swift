public import PeerBenchJSON
import PeerBenchPlugin
public import PeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Where `run --link remote --peer` and `serve --listen` point: the one place that
/// turns `HOST[:PORT]` (`[v6]:PORT` for IPv6; a name is resolved) into a numeric address.
public enum RemotePeer {
    /// Parses and resolves `text`; `option` names the argument in errors.
    public static func resolve(_ text: String, option: String, defaultPort: UInt16 = ServeLimits.defaultPort) throws(InputError) -> SocketAddress {
        let (host, port) = try split(text, option: option, defaultPort: defaultPort)
        if let numeric = numeric(host) { return SocketAddress(host: numeric, port: port) }
        return SocketAddress(host: try lookUp(host, option: option), port: port)
    }

    /// `HOST`, `HOST:PORT`, `[V6]`, `[V6]:PORT`, or a bare IPv6 address.
    static func split(_ text: String, option: String, defaultPort: UInt16) throws(InputError) -> (String, UInt16) {
        func bad(_ why: String) -> InputError { InputError(source: option, "\"\(text)\" \(why); write HOST, HOST:PORT or [IPv6]:PORT") }
        guard !text.isEmpty else { throw bad("is empty") }
        var host = text
        var portText: String?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw bad("has no closing ]") }
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { throw bad("has text after ]") }
                portText = String(rest.dropFirst())
            }
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            host = String(text[..<colon])
            portText = String(text[text.index(after: colon)...])
        }
        guard !host.isEmpty else { throw bad("has no host") }
        guard let portText else { return (host, defaultPort) }
        guard let port = UInt16(portText), port > 0 else { throw bad("has port \"\(portText)\", not a number in 1...65535") }
        return (host, port)
    }

    /// The canonical numeric form of an IPv4 or IPv6 address; nil for a name. An
    /// IPv4-mapped IPv6 address becomes plain IPv4, so it matches what a kernel
    /// filter on an IPv4 socket sees.
    public static func numeric(_ host: String) -> String? {
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return host }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, host, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
            return bytes[12..<16].map(String.init).joined(separator: ".")
        }
        var buf = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        inet_ntop(AF_INET6, &v6, &buf, socklen_t(buf.count))
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The first address getaddrinfo gives for `name` (IPv4 preferred, as most ad hoc links are).
    static func lookUp(_ name: String, option: String) throws(InputError) -> String {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(name, nil, &hints, &result)
        guard rc == 0, let first = result else {
            throw InputError(source: option, "cannot resolve \"\(name)\": \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(first) }
        var found: [String] = []
        var p: UnsafeMutablePointer<addrinfo>? = first
        while let a = p {
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { dst in
                dst.copyMemory(from: UnsafeRawBufferPointer(start: a.pointee.ai_addr, count: Int(a.pointee.ai_addrlen)))
            }
            if let s = SocketAddress(storage: storage) { found.append(s.host) }
            p = a.pointee.ai_next
        }
        guard let pick = found.first(where: { !$0.contains(":") }) ?? found.first else {
            throw InputError(source: option, "\"\(name)\" has no IPv4 or IPv6 address")
        }
        return pick
    }
}
