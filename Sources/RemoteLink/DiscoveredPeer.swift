import Foundation

/// One resolved DNS-SD instance of `_peerbench._tcp`, as one interface and address family saw it.
public struct DiscoveredPeer: Sendable, Equatable {
    /// The instance name (`serve --advertise`'s name, the host name by default).
    public var name: String
    /// The mDNS host name (`laptop.local`).
    public var host: String
    /// A numeric address; an IPv6 link-local one carries its scope (`fe80::1%wlan0`).
    public var address: String
    public var port: UInt16
    public var txt: [String: String]

    public init(name: String, host: String, address: String, port: UInt16, txt: [String: String]) {
        self.name = name
        self.host = host
        self.address = address
        self.port = port
        self.txt = txt
    }

    /// The control protocol versions of the TXT record (empty when it has none).
    public var controlVersions: [UInt16] {
        (txt[Discovery.versionsKey] ?? "").split(separator: ",").compactMap { UInt16($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// `HOST:PORT` for `--peer` (`[v6]:PORT` for IPv6).
    public var endpoint: String { address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)" }
}
