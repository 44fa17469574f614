/// What the client's HELLO exchange gave (`UDPClient.hello`): how many HELLOs it took,
/// and the server's separate probe-flow port from HELLO_ACK.
struct UDPHelloExchange {
    var attempts = 0
    /// With `loadedRttProbes.flow` `separate`; nil when HELLO_ACK named none.
    var probePort: UInt16?
}
