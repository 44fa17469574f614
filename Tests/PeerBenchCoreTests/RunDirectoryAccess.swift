@testable import PeerBenchCore

/// Opens an existing run folder the way resume will, for tests of export and reading.
enum RunDirectoryAccess {
    static func open(_ path: String) -> RunDirectory { RunDirectory(path: path) }
}
