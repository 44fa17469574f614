/// Backpressure for senders faster than the link: a token-bucket qdisc (`tbf`) on each
/// namespace's TUN device, at the link's (on-channel) rate.
///
/// The TUN device releases a packet's socket memory the moment it takes the packet
/// (`skb_orphan` in `tun_net_xmit`), and it tail-drops when its ring is full instead of
/// stopping the queue, so without a shaper an unpaced UDP sender never blocks: the
/// excess is dropped in the emulator's queue. Packets waiting in a qdisc *in front of*
/// the device are still charged to their socket, so with the shaper the socket's send
/// buffer fills and `send` blocks, as it would behind a flow-controlled Wi-Fi driver.
/// TCP is unaffected in kind: TCP small queues keeps only about a millisecond of data
/// of each flow in the qdisc.
///
/// The shaper only enforces the rate; the emulator still models everything
/// else (the AWDL off-channel slots, the radio channel's variation, loss, delay), and
/// its queue absorbs the bursts the shaper lets through.
public struct SenderShaping: Sendable, Equatable {
    /// Shaper rate as a multiple of the link's on-channel rate (`rateBitsPerSecond`).
    /// 1.0: the emulator's queue stays empty on an always-on fixed-rate link.
    public var rateFactor: Double
    /// Token bucket depth, bytes. At least one TSO super-packet (64 KiB plus headers),
    /// or tbf would cut every super-packet into segments.
    public var burstBytes: Int
    /// Bytes the shaper may hold. Deliberately large: what must stop a sender is its
    /// own socket buffer (every packet in the qdisc is charged to it), not a qdisc
    /// overflow, which is a silent drop for UDP. It must exceed the largest send buffer
    /// a sender uses (the udp plugin forces 16 MiB, which the kernel doubles to 32 MiB
    /// of truesize, about 21 MB of 1 484-byte fragments).
    public var limitBytes: Int

    public init(rateFactor: Double = 1.0, burstBytes: Int = 128 << 10, limitBytes: Int = 64 << 20) {
        self.rateFactor = rateFactor
        self.burstBytes = burstBytes
        self.limitBytes = limitBytes
    }

    public static let `default` = SenderShaping()
}

/// One tbf configuration, as put on both devices.
struct SenderShaper: Sendable, Equatable {
    var rateBitsPerSecond: UInt64
    var burstBytes: Int
    var limitBytes: Int

    /// `tc qdisc add dev pb0 root` + these.
    var tcArguments: [String] {
        ["handle", "1:", "tbf", "rate", "\(rateBitsPerSecond)bit", "burst", String(burstBytes), "limit", String(limitBytes)]
    }

    /// The `tc` commands (without `tc`) that put the shaper on `device`: the tbf, and
    /// under it `pfifo_fast`, whose three bands are served in strict priority by the
    /// socket priority (`SO_PRIORITY`, which `ServiceClass` sets to the 802.1D user
    /// priority): 6-7 (voice) first, then 0, 3, 4 (best effort and video), then 1-2
    /// (background). So a voice or best-effort packet does not wait in the shaper
    /// behind a background flow's backlog, as a Wi-Fi driver keeps a queue per access
    /// category. (`prio` would give video its own band; kernels without sch_prio, like
    /// the one this was built on, have only pfifo_fast.)
    func tcBatch(device: String) -> [String] {
        [
            (["qdisc", "add", "dev", device, "root"] + tcArguments).joined(separator: " "),
            "qdisc add dev \(device) parent 1:1 handle 10: pfifo_fast",
        ]
    }

    /// The device queue length the shaper needs: pfifo_fast holds up to this many
    /// packets per band, and must not drop before the sender's socket buffer blocks it
    /// (the tbf's byte `limit`, at the smallest packets' memory cost, about 700 bytes).
    var deviceQueueLength: Int { max(1_000, limitBytes / 640) }
}
