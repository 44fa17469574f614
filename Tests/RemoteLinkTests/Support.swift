import PeerBenchCore

@testable import RemoteLink

// Helpers the remote-link tests share go here.
