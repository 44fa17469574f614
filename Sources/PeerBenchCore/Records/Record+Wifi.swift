import PeerBenchPlugin

extension Record {
    /// Fills the record's Wi-Fi keys from what the cell ran with: the mode and the
    /// class its sockets were marked with.
    mutating func fillWifi(_ wifi: WifiSettings) {
        link.performanceMode = wifi.performanceMode.rawValue
        link.serviceClass = wifi.serviceClass.rawValue
    }
}
