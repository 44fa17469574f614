import Foundation
import PeerBenchSystem

/// Finds the bundled TLS identities (`certs/`) that the encrypted transports use by
/// default, in this order:
/// 1. `$PEERBENCH_CERTS`;
/// 2. a `certs/` or `share/peerbench/certs/` directory next to the running executable
///    or in one of its ancestors (`.build/release/peerbench` in a checkout finds the
///    checkout's `certs/`; `PREFIX/bin/peerbench` finds `PREFIX/share/peerbench/certs`);
/// 3. the same search upwards from the working directory;
/// 4. the package this file was compiled from.
public enum BundledCertificates {
    /// The variable that names the directory, searched first.
    public static let environmentVariable = "PEERBENCH_CERTS"

    /// The directory holding `ca.pem`, or nil when none was found.
    public static func directory() -> String? {
        if let env = ProcessInfo.processInfo.environment[environmentVariable], !env.isEmpty {
            return env
        }
        return BundledFiles.locate(["certs", "share/peerbench/certs"], containing: "ca.pem")
    }
}
