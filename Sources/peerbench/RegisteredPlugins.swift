import PeerBenchCore
import UWBRanging

/// The transport plugins this executable offers, in `peerbench list` order.
/// `swift package new-transport NAME` adds its import and entry here.
let registeredPlugins: [any TransportPlugin.Type] = [
    UWBPlugin.self,
]
