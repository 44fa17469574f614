import Foundation

/// Finding the peer by DNS-SD, as the field study's app found its peer by Bonjour:
/// `serve --advertise` publishes `_peerbench._tcp` through the system's mDNS responder
/// (Avahi) and `run --peer auto[:NAME]` browses for it. PeerBench never answers mDNS
/// itself; it drives Avahi's own `avahi-publish` and `avahi-browse` (see
/// Discovery+Avahi.swift for why the tools rather than libavahi-client).
public enum Discovery {
    /// The TXT key carrying the control protocol versions the server speaks ("1" or "1,2").
    static let versionsKey = "proto"

    /// What `--peer` names: an address, or `auto` / `auto:NAME` (browse for it).
    public enum PeerSpec: Equatable, Sendable {
        case address(String)
        case auto(name: String?)

        public init(_ text: String) {
            if text == "auto" {
                self = .auto(name: nil)
            } else if text.hasPrefix("auto:") {
                let name = String(text.dropFirst(5))
                self = .auto(name: name.isEmpty ? nil : name)
            } else {
                self = .address(text)
            }
        }
    }

    /// The instance to use among `found`: the one named `name`, or the only one.
    /// Entries of one instance (per interface, IPv4 and IPv6) count as one; its IPv4
    /// address is preferred, then a global IPv6, then a link-local one with its scope.
    public static func pick(_ found: [DiscoveredPeer], name: String?) throws(DiscoveryError) -> DiscoveredPeer {
        let names = found.map(\.name).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let chosen: String
        if let name {
            guard names.contains(name) else {
                throw DiscoveryError(
                    "no peerbench server named \"\(name)\" found by DNS-SD (\(RemoteLink.serviceType))"
                        + (names.isEmpty
                            ? "; is `peerbench serve --advertise` running on the peer, on the same link?"
                            : "; found: \(names.map { "\"\($0)\"" }.joined(separator: ", "))"))
            }
            chosen = name
        } else {
            guard let only = names.first else {
                throw DiscoveryError(
                    "no peerbench server found by DNS-SD (\(RemoteLink.serviceType)); is `peerbench serve --advertise` running on the peer, on the same link?"
                )
            }
            guard names.count == 1 else {
                throw DiscoveryError(
                    "\(names.count) peerbench servers found by DNS-SD: \(names.map { "\"\($0)\"" }.joined(separator: ", ")); choose one with --peer auto:NAME"
                )
            }
            chosen = only
        }
        let entries = found.filter { $0.name == chosen }
        let best = entries.min { rank($0.address) < rank($1.address) }!
        let ours = Set(RemoteLink.controlProtocolVersions)
        if !best.controlVersions.isEmpty && ours.isDisjoint(with: best.controlVersions) {
            throw DiscoveryError(
                "peerbench server \"\(chosen)\" speaks control protocol \(best.controlVersions.map(String.init).joined(separator: ", ")), this peerbench \(RemoteLink.controlProtocolVersions.map(String.init).joined(separator: ", ")): use the same peerbench version on both hosts"
            )
        }
        return best
    }

    /// IPv4 first, then global IPv6, then link-local IPv6 (needs its interface).
    private static func rank(_ address: String) -> Int {
        if !address.contains(":") { return 0 }
        return address.lowercased().hasPrefix("fe80:") ? 2 : 1
    }
}
