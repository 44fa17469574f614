import CPeerBenchSystem

#if canImport(Glibc)
    import Glibc
#endif

/// nl80211 over generic netlink: the peer station of a wireless interface.
enum WirelessQuery {
    /// The station and channel figures of `interfaceIndex`, or nil when the kernel has no
    /// nl80211 (no cfg80211 loaded), the interface is not wireless (nl80211 refuses its
    /// index), or it has no associated station. Any failure is a nil, never a throw:
    /// link inspection must not fail a cell.
    static func station(interfaceIndex: Int) -> WirelessStation? {
        guard let socket = try? NetlinkSocket(protocol: NETLINK_GENERIC), let family = familyID(socket) else { return nil }
        let ifindex = NetlinkAttribute(type: nl80211Type(NL80211_ATTR_IFINDEX), u32: UInt32(interfaceIndex))
        guard
            let stationMessages = try? socket.request(
                "NL80211_CMD_GET_STATION", type: family, dump: true,
                fixed: genlHeader(command: UInt8(NL80211_CMD_GET_STATION.rawValue)),
                attributes: [ifindex]),
            let stations = try? NL80211Parser.stations(stationMessages)
        else { return nil }
        // Noise is optional: many drivers have no survey, and its absence costs only snr_db.
        let survey =
            (try? socket.request(
                "NL80211_CMD_GET_SURVEY", type: family, dump: true,
                fixed: genlHeader(command: UInt8(NL80211_CMD_GET_SURVEY.rawValue)),
                attributes: [ifindex]))
            .flatMap { try? NL80211Parser.channelInUse($0) }
        return NL80211Parser.peer(of: stations, channel: survey)
    }

    /// CTRL_CMD_GETFAMILY "nl80211": the family's id, nil when it is not registered.
    static func familyID(_ socket: NetlinkSocket) -> UInt16? {
        guard
            let messages = try? socket.request(
                "CTRL_CMD_GETFAMILY nl80211", type: pb_genl_id_ctrl, dump: false,
                fixed: genlHeader(command: UInt8(CTRL_CMD_GETFAMILY)),
                attributes: [NetlinkAttribute(type: UInt16(CTRL_ATTR_FAMILY_NAME), string: NL80211_GENL_NAME)]),
            let reply = messages.first, reply.payload.count >= Int(pb_genlmsghdr_size),
            let attributes = try? NetlinkAttribute.parse(reply.payload.dropFirst(Int(pb_genlmsghdr_size)))
        else { return nil }
        return attributes[UInt16(CTRL_ATTR_FAMILY_ID)]?.u16
    }

    /// `struct genlmsghdr`: command, version 0 (nl80211 and the controller ignore it), reserved.
    static func genlHeader(command: UInt8) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: Int(pb_genlmsghdr_size))
        header[0] = command
        return header
    }
}

/// The nl80211 attribute types of the uapi enums, as the 16-bit `nla_type`.
func nl80211Type<T: RawRepresentable>(_ value: T) -> UInt16 where T.RawValue: BinaryInteger { UInt16(value.rawValue) }

/// Reads nl80211 answers. Separate from the socket so tests can feed it the kernel's
/// message layout built byte by byte (this machine's kernel has no Wi-Fi to ask).
enum NL80211Parser {
    /// The channel the interface uses, from a survey dump: frequency and noise floor.
    struct Channel: Equatable {
        var frequencyMHz: Int?
        var noiseDbm: Int?
    }

    /// Every station of an NL80211_CMD_GET_STATION dump (one per message). Unknown
    /// attributes are skipped; a length field that overruns its message throws.
    static func stations(_ messages: [NetlinkMessage]) throws(NetlinkParseError) -> [WirelessStation] {
        var stations: [WirelessStation] = []
        for message in messages {
            let attributes = try genlAttributes(message)
            guard let info = attributes[nl80211Type(NL80211_ATTR_STA_INFO)] else { continue }
            let sta = try NetlinkAttribute.parse(info.value)
            var station = WirelessStation()
            station.mac = attributes[nl80211Type(NL80211_ATTR_MAC)].flatMap { mac($0.value) }
            station.signalDbm = sta[nl80211Type(NL80211_STA_INFO_SIGNAL)]?.s8.map(Int.init)
            station.signalAverageDbm = sta[nl80211Type(NL80211_STA_INFO_SIGNAL_AVG)]?.s8.map(Int.init)
            station.inactiveMs = sta[nl80211Type(NL80211_STA_INFO_INACTIVE_TIME)]?.u32.map(Int.init)
            if let tx = sta[nl80211Type(NL80211_STA_INFO_TX_BITRATE)] {
                let rate = try rateInfo(tx.value)
                station.txBitrateMbps = rate.mbps
                station.txMCS = rate.mcs
            }
            if let rx = sta[nl80211Type(NL80211_STA_INFO_RX_BITRATE)] {
                station.rxBitrateMbps = try rateInfo(rx.value).mbps
            }
            stations.append(station)
        }
        return stations
    }

    /// The survey entry flagged NL80211_SURVEY_INFO_IN_USE (the channel the interface is on).
    static func channelInUse(_ messages: [NetlinkMessage]) throws(NetlinkParseError) -> Channel? {
        for message in messages {
            guard let info = try genlAttributes(message)[nl80211Type(NL80211_ATTR_SURVEY_INFO)] else { continue }
            let survey = try NetlinkAttribute.parse(info.value)
            guard survey[nl80211Type(NL80211_SURVEY_INFO_IN_USE)] != nil else { continue }
            return Channel(
                frequencyMHz: survey[nl80211Type(NL80211_SURVEY_INFO_FREQUENCY)]?.u32.map(Int.init),
                noiseDbm: survey[nl80211Type(NL80211_SURVEY_INFO_NOISE)]?.s8.map(Int.init))
        }
        return nil
    }

    /// The peer among the stations: the one heard most recently (an IBSS or a Wi-Fi
    /// Direct group of two has exactly one; a busier cell picks the active peer), with
    /// the channel's noise and frequency added.
    static func peer(of stations: [WirelessStation], channel: Channel?) -> WirelessStation? {
        guard var peer = stations.min(by: { ($0.inactiveMs ?? .max) < ($1.inactiveMs ?? .max) }) else { return nil }
        peer.noiseDbm = channel?.noiseDbm
        peer.frequencyMHz = channel?.frequencyMHz
        return peer
    }

    /// A nested `nl80211_rate_info`: the bitrate (BITRATE32, else the 16-bit BITRATE; both
    /// in 100 kbit/s) and the MCS of whichever PHY the rate is (HT, VHT, HE, EHT).
    static func rateInfo(_ bytes: [UInt8]) throws(NetlinkParseError) -> (mbps: Double?, mcs: Int?) {
        let rate = try NetlinkAttribute.parse(bytes)
        let units = rate[nl80211Type(NL80211_RATE_INFO_BITRATE32)]?.u32 ?? rate[nl80211Type(NL80211_RATE_INFO_BITRATE)]?.u16.map(UInt32.init)
        let mcs = [NL80211_RATE_INFO_MCS, NL80211_RATE_INFO_VHT_MCS, NL80211_RATE_INFO_HE_MCS, NL80211_RATE_INFO_EHT_MCS]
            .lazy.compactMap { rate[nl80211Type($0)]?.u8 }.first
        return (units.map { Double($0) / 10 }, mcs.map(Int.init))
    }

    private static func genlAttributes(_ message: NetlinkMessage) throws(NetlinkParseError) -> [NetlinkAttribute] {
        guard message.payload.count >= Int(pb_genlmsghdr_size) else { throw NetlinkParseError("nl80211 message shorter than genlmsghdr") }
        return try NetlinkAttribute.parse(message.payload.dropFirst(Int(pb_genlmsghdr_size)))
    }

    private static func mac(_ bytes: [UInt8]) -> String? {
        guard bytes.count == 6 else { return nil }
        return bytes.map { b in
            let hex = String(b, radix: 16)
            return b < 16 ? "0" + hex : hex
        }.joined(separator: ":")
    }
}
