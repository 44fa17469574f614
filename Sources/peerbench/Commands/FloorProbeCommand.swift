import ArgumentParser
import Foundation
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin
import PeerBenchTestbed

/// Hidden: measures one transport's loopback RTT floor for `run` (`FloorProbe`), in a
/// process of its own, so a plugin that crashes or hangs costs its floor entry, not
/// the run. Reads a `TransportSpec` as JSON on stdin, prints a
/// `MeasurementFloor.TransportFloor` as one JSON line.
struct FloorProbeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "floor-probe",
        abstract: "Measure one transport's loopback RTT floor for a supervising `peerbench run` (internal).",
        shouldDisplay: false
    )

    func run() async throws {
        let input = FileHandle.standardInput.readDataToEndOfFile()
        let spec = try JSONCoding.decode(TransportSpec.self, from: Array(input))
        let floor = await MeasurementFloor.measureLoopback(spec, registry: Wiring.registry)
        print(try JSONCoding.encode(floor).compactText)
    }
}
