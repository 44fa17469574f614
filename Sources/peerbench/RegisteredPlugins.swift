import ExecTransport
import PeerBenchCore
import PeerBenchPlugin
import QUICTransport
import TCPTransport
import TLSTransport
import UDPTransport
import UWBRanging

/// The transport plugins this executable offers, in `peerbench list` order.
/// `swift package new-transport NAME` adds its import and entry here.
let registeredPlugins: [any TransportPlugin.Type] = [
    TCPPlugin.self,
    UDPPlugin.self,
    QUICPlugin.self,
    UWBPlugin.self,
    TLSPlugin.self,
    ExecPlugin.self,
]
