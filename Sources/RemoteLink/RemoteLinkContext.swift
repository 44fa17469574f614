import PeerBenchPlugin
import PeerBenchTestbed

/// Turns what the kernel said about the real link (the route, and each end's interface
/// before and after the cell) into the record's link fields. docs/RECORDS.md ("The
/// link", two real hosts) defines every field; in short:
/// - `packets_up`/`bytes_up`: what the client's interface transmitted during the cell;
///   `packets_down`/`bytes_down`: what the server's interface transmitted (the client's
///   received counts when the server's snapshots are missing);
/// - `drops_up`: the client's tx drops + the server's rx drops; `drops_down`: the
///   server's tx drops + the client's rx drops (null without the server's snapshots);
/// - `rssi_dbm`/`snr_db`: the mean over the ends that report them (each end's view of
///   the other's frames, read after the cell); `mcs`/`phy_rate_mbps`: the client's
///   transmit rate towards the server after the cell (the bulk direction).
public enum RemoteLinkContext {
    /// Fills link.interface, link.path_mtu, link.rssi_dbm/snr_db/mcs/phy_rate_mbps
    /// and the packets/bytes/drops fields from both ends' before/after snapshots.
    public static func fill(
        _ link: inout RecordLink, route: LinkRoute, pathMTU: Int?,
        client: (before: InterfaceSnapshot, after: InterfaceSnapshot),
        server: (before: InterfaceSnapshot, after: InterfaceSnapshot)?
    ) {
        link.peerAddress = link.peerAddress ?? route.peer
        link.interface = route.interface
        link.mtu = route.mtu
        link.pathMtu = pathMTU ?? route.pathMTU

        let up = delta(client.before.counters, client.after.counters)
        let serverDelta = server.flatMap { delta($0.before.counters, $0.after.counters) }
        link.packetsUp = up.map { $0.txPackets }
        link.bytesUp = up.map { $0.txBytes }
        if server != nil {
            link.packetsDown = serverDelta?.txPackets
            link.bytesDown = serverDelta?.txBytes
        } else {
            link.packetsDown = up?.rxPackets
            link.bytesDown = up?.rxBytes
        }
        if let up, let serverDelta {
            link.dropsUp = up.txDropped + serverDelta.rxDropped
            link.dropsDown = serverDelta.txDropped + up.rxDropped
        } else {
            link.dropsUp = nil
            link.dropsDown = nil
        }

        let stations = [client.after.station ?? client.before.station, server.flatMap { $0.after.station ?? $0.before.station }]
            .compactMap { $0 }
        link.rssiDbm = mean(stations.compactMap { $0.signalDbm ?? $0.signalAverageDbm })
        link.snrDb = mean(stations.compactMap(\.snrDb))
        let clientStation = client.after.station ?? client.before.station
        link.mcs = clientStation?.txMCS
        link.phyRateMbps = clientStation?.txBitrateMbps
    }

    /// The counters' growth over the cell, as Int for the record; nil when either
    /// snapshot has none or a counter went backwards (the interface was re-created).
    struct Delta {
        var txPackets, rxPackets, txBytes, rxBytes, txDropped, rxDropped: Int
    }

    static func delta(_ before: InterfaceCounters?, _ after: InterfaceCounters?) -> Delta? {
        guard let b = before, let a = after else { return nil }
        func d(_ path: KeyPath<InterfaceCounters, UInt64>) -> Int? {
            a[keyPath: path] >= b[keyPath: path] ? Int(clamping: a[keyPath: path] - b[keyPath: path]) : nil
        }
        guard let txP = d(\.txPackets), let rxP = d(\.rxPackets), let txB = d(\.txBytes), let rxB = d(\.rxBytes),
            let txD = d(\.txDropped), let rxD = d(\.rxDropped)
        else { return nil }
        return Delta(txPackets: txP, rxPackets: rxP, txBytes: txB, rxBytes: rxB, txDropped: txD, rxDropped: rxD)
    }

    private static func mean(_ values: [Int]) -> Double? {
        values.isEmpty ? nil : Double(values.reduce(0, +)) / Double(values.count)
    }
}
