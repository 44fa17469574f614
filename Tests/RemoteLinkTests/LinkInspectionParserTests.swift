import CPeerBenchSystem
import Foundation
import PeerBenchCore
import Testing

@testable import RemoteLink

#if canImport(Glibc)
    import Glibc
#endif

/// Builds netlink messages byte by byte, in the kernel's layout (uapi linux/netlink.h:
/// nlmsghdr 16 bytes, nlattr 4 bytes + value padded to 4), independently of the
/// production encoder, so the parser is checked against the layout, not against itself.
enum KernelBytes {
    static func u16(_ v: UInt16) -> [UInt8] { withUnsafeBytes(of: v) { Array($0) } }
    static func u32(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v) { Array($0) } }
    static func u64(_ v: UInt64) -> [UInt8] { withUnsafeBytes(of: v) { Array($0) } }

    static func attr(_ type: UInt16, _ value: [UInt8], nested: Bool = false) -> [UInt8] {
        var bytes = u16(UInt16(4 + value.count)) + u16(type | (nested ? UInt16(NLA_F_NESTED) : 0)) + value
        while bytes.count % 4 != 0 { bytes.append(0) }
        return bytes
    }

    static func attr<T: RawRepresentable>(_ type: T, _ value: [UInt8], nested: Bool = false) -> [UInt8] where T.RawValue: BinaryInteger {
        attr(UInt16(type.rawValue), value, nested: nested)
    }

    /// One generic netlink message of `family` (nlmsghdr + genlmsghdr + attributes).
    static func genl(family: UInt16, command: UInt8, _ attributes: [UInt8], sequence: UInt32 = 7) -> [UInt8] {
        let body: [UInt8] = [command, 1, 0, 0] + attributes
        return u32(UInt32(16 + body.count)) + u16(family) + u16(UInt16(NLM_F_MULTI)) + u32(sequence) + u32(4242) + body
    }

    static func s8(_ v: Int8) -> [UInt8] { [UInt8(bitPattern: v)] }
}

@Suite struct LinkInspectionParserTests {
    typealias K = KernelBytes
    static let family: UInt16 = 0x1c  // any id the controller may hand out

    /// `iw dev wlan0 station dump` would print for it: signal -59 dBm, tx bitrate
    /// 866.7 MBit/s VHT-MCS 9 VHT-NSS 2, rx bitrate 650.0 MBit/s, inactive time 120 ms.
    static func vhtStation(mac: [UInt8] = [0x02, 0x00, 0x5e, 0x10, 0xa0, 0x0f], inactive: UInt32 = 120, signal: Int8 = -59) -> [UInt8] {
        let tx =
            K.attr(NL80211_RATE_INFO_BITRATE, K.u16(8667 & 0xffff))  // the u16 legacy field, superseded below
            + K.attr(NL80211_RATE_INFO_BITRATE32, K.u32(8667))
            + K.attr(NL80211_RATE_INFO_VHT_MCS, [9])
            + K.attr(NL80211_RATE_INFO_VHT_NSS, [2])
            + K.attr(NL80211_RATE_INFO_SHORT_GI, [])
        let rx = K.attr(NL80211_RATE_INFO_BITRATE32, K.u32(6500)) + K.attr(NL80211_RATE_INFO_VHT_MCS, [7])
        let info =
            K.attr(NL80211_STA_INFO_INACTIVE_TIME, K.u32(inactive))
            + K.attr(NL80211_STA_INFO_RX_BYTES, K.u32(123_456))
            + K.attr(NL80211_STA_INFO_SIGNAL, K.s8(signal))
            + K.attr(NL80211_STA_INFO_SIGNAL_AVG, K.s8(signal - 2))
            + K.attr(0x7ff0, [1, 2, 3, 4, 5])  // an attribute from a future kernel: skipped
            + K.attr(NL80211_STA_INFO_TX_BITRATE, tx, nested: true)
            + K.attr(NL80211_STA_INFO_RX_BITRATE, rx, nested: true)
        return K.genl(
            family: family, command: UInt8(NL80211_CMD_NEW_STATION.rawValue),
            K.attr(NL80211_ATTR_IFINDEX, K.u32(3)) + K.attr(NL80211_ATTR_MAC, mac)
                + K.attr(NL80211_ATTR_STA_INFO, info, nested: true))
    }

    static func survey(frequency: UInt32, noise: Int8, inUse: Bool) -> [UInt8] {
        var info = K.attr(NL80211_SURVEY_INFO_FREQUENCY, K.u32(frequency)) + K.attr(NL80211_SURVEY_INFO_NOISE, K.s8(noise))
        if inUse { info += K.attr(NL80211_SURVEY_INFO_IN_USE, []) }
        info += K.attr(NL80211_SURVEY_INFO_TIME, K.u64(1_000))
        return K.genl(
            family: family, command: UInt8(NL80211_CMD_NEW_SURVEY_RESULTS.rawValue),
            K.attr(NL80211_ATTR_IFINDEX, K.u32(3)) + K.attr(NL80211_ATTR_SURVEY_INFO, info, nested: true))
    }

    @Test func stationDumpGivesSignalMCSAndBitrates() throws {
        let stations = try NL80211Parser.stations(NetlinkMessage.parse(Self.vhtStation()))
        #expect(
            stations == [
                WirelessStation(
                    mac: "02:00:5e:10:a0:0f", signalDbm: -59, signalAverageDbm: -61, txMCS: 9,
                    txBitrateMbps: 866.7, rxBitrateMbps: 650, inactiveMs: 120)
            ])
    }

    @Test func htRateWithOnlyTheLegacyBitrateField() throws {
        let tx = K.attr(NL80211_RATE_INFO_BITRATE, K.u16(650)) + K.attr(NL80211_RATE_INFO_MCS, [7])
        let message = K.genl(
            family: Self.family, command: UInt8(NL80211_CMD_NEW_STATION.rawValue),
            K.attr(NL80211_ATTR_STA_INFO, K.attr(NL80211_STA_INFO_TX_BITRATE, tx, nested: true), nested: true))
        let station = try #require(try NL80211Parser.stations(NetlinkMessage.parse(message)).first)
        #expect(station.txBitrateMbps == 65.0)
        #expect(station.txMCS == 7)
        #expect(station.signalDbm == nil)
        #expect(station.mac == nil)
    }

    @Test func surveyNoiseOfTheChannelInUseAndTheResultingSNR() throws {
        // Two messages in one datagram, as a dump sends them; only the second is in use.
        let bytes = Self.survey(frequency: 2412, noise: -90, inUse: false) + Self.survey(frequency: 5180, noise: -95, inUse: true)
        let channel = try NL80211Parser.channelInUse(NetlinkMessage.parse(bytes))
        #expect(channel == NL80211Parser.Channel(frequencyMHz: 5180, noiseDbm: -95))

        let stations = try NL80211Parser.stations(NetlinkMessage.parse(Self.vhtStation()))
        let peer = try #require(NL80211Parser.peer(of: stations, channel: channel))
        #expect(peer.noiseDbm == -95)
        #expect(peer.frequencyMHz == 5180)
        #expect(peer.snrDb == 36)  // -59 - (-95)
        #expect(try NL80211Parser.channelInUse(NetlinkMessage.parse(Self.survey(frequency: 2412, noise: -90, inUse: false))) == nil)
    }

    @Test func thePeerIsTheStationHeardMostRecently() throws {
        let stale = Self.vhtStation(mac: [2, 0, 0, 0, 0, 1], inactive: 40_000, signal: -80)
        let active = Self.vhtStation(mac: [2, 0, 0, 0, 0, 2], inactive: 8, signal: -50)
        let stations = try NL80211Parser.stations(NetlinkMessage.parse(stale + active))
        #expect(stations.count == 2)
        #expect(NL80211Parser.peer(of: stations, channel: nil)?.mac == "02:00:00:00:00:02")
        #expect(NL80211Parser.peer(of: stations, channel: nil)?.signalDbm == -50)
        #expect(NL80211Parser.peer(of: [], channel: nil) == nil)
    }

    @Test func truncatedAttributesAreRejectedWithoutATrap() throws {
        let good = Self.vhtStation()
        // A nested attribute whose length runs past its parent: a clear parse error.
        let lying = K.attr(NL80211_STA_INFO_SIGNAL, K.s8(-40)) + K.u16(200) + K.u16(UInt16(NL80211_STA_INFO_TX_BITRATE.rawValue)) + [1, 2, 3, 4]
        let message = K.genl(
            family: Self.family, command: UInt8(NL80211_CMD_NEW_STATION.rawValue),
            K.attr(NL80211_ATTR_STA_INFO, lying, nested: true))
        #expect(throws: NetlinkParseError.self) { try NL80211Parser.stations(NetlinkMessage.parse(message)) }
        // An attribute length below its own header.
        let tiny = K.genl(family: Self.family, command: 0, K.u16(2) + K.u16(1) + [0, 0, 0, 0])
        #expect(throws: NetlinkParseError.self) { try NL80211Parser.stations(NetlinkMessage.parse(tiny)) }
        // Every cut of a real message, and every byte of it set to 0xff: parsed or
        // rejected, never a crash (the test process would die).
        for cut in 0..<good.count {
            var bytes = Array(good[0..<cut])
            if cut >= 4 { bytes.replaceSubrange(0..<4, with: K.u32(UInt32(good.count))) }  // the header still claims the whole
            _ = try? NL80211Parser.stations(NetlinkMessage.parse(bytes))
        }
        for i in 0..<good.count {
            var bytes = good
            bytes[i] = 0xff
            _ = try? NL80211Parser.stations(NetlinkMessage.parse(bytes))
            _ = try? NL80211Parser.channelInUse(NetlinkMessage.parse(bytes))
        }
        #expect(throws: NetlinkParseError.self) { try NetlinkMessage.parse(Array(good.dropLast(4))) }
    }

    @Test func linkStats64AtTheUapiOffsets() throws {
        // struct rtnl_link_stats64 begins rx_packets, tx_packets, rx_bytes, tx_bytes,
        // rx_errors, tx_errors, rx_dropped, tx_dropped (u64 each).
        let stats = [11, 12, 13, 14, 15, 16, 17, 18].flatMap { K.u64(UInt64($0)) } + [UInt8](repeating: 0, count: 200)
        let ifinfo: [UInt8] = [0, 0] + K.u16(1) + K.u32(5) + K.u32(0) + K.u32(0)
        let payload =
            ifinfo + K.attr(UInt16(IFLA_IFNAME), Array("wlan0".utf8) + [0]) + K.attr(UInt16(IFLA_MTU), K.u32(1500))
            + K.attr(UInt16(IFLA_STATS64), Array(stats.prefix(MemoryLayout<rtnl_link_stats64>.size)))
        let link = try RouteQuery.parseLink(payload)
        #expect(link.index == 5)
        #expect(link.name == "wlan0")
        #expect(link.mtu == 1500)
        #expect(
            link.counters
                == InterfaceCounters(
                    rxPackets: 11, txPackets: 12, rxBytes: 13, txBytes: 14,
                    rxDropped: 17, txDropped: 18, rxErrors: 15, txErrors: 16))
    }

    @Test func requestsCarryTheKernelsLayout() throws {
        let bytes = NetlinkMessage.request(
            type: 0x1c, flags: UInt16(NLM_F_REQUEST | NLM_F_DUMP), sequence: 9,
            fixed: [UInt8(NL80211_CMD_GET_STATION.rawValue), 0, 0, 0],
            attributes: [NetlinkAttribute(type: UInt16(NL80211_ATTR_IFINDEX.rawValue), u32: 3)])
        #expect(
            bytes == K.u32(28) + K.u16(0x1c) + K.u16(UInt16(NLM_F_REQUEST | NLM_F_DUMP)) + K.u32(9) + K.u32(0)
                + [UInt8(NL80211_CMD_GET_STATION.rawValue), 0, 0, 0] + K.attr(NL80211_ATTR_IFINDEX, K.u32(3)))
    }
}
