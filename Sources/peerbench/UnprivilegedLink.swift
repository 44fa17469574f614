import Foundation
import LinkEmulation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchTestbed

/// Runs the emulated link without root where the system allows it: the command
/// re-executes itself inside a new user namespace (where it is root of its own
/// network and mount namespaces) with a private /run for `ip netns`.
///
/// Possible only when unprivileged user namespaces are enabled and /dev/net/tun is
/// open to this user (mode 0666 on most distributions; some keep it root-only, and
/// then the testbed's own message says to use sudo or --link none).
enum UnprivilegedLink {
    static let marker = "PEERBENCH_IN_USER_NAMESPACE"

    /// Replaces this process with itself inside a user namespace when emulation is
    /// wanted, CAP_NET_ADMIN is missing and the system allows the unprivileged way.
    /// Returns (doing nothing) in every other case.
    static func reexecIfPossible(linkMode: LinkMode) {
        guard linkMode == .emulated, !EmulatedTestbed.hasNetAdmin,
            ProcessInfo.processInfo.environment[marker] == nil,
            access("/dev/net/tun", R_OK | W_OK) == 0,
            FileManager.default.isExecutableFile(atPath: unshare), userNamespacesWork()
        else { return }
        guard let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return }
        setenv(marker, "1", 1)
        // The tmpfs over /run is private to the new mount namespace: `ip netns add`
        // pins namespaces under /run/netns, which an unprivileged user cannot write.
        // Loopback must be up in the new network namespace: Foundation's run loop
        // wakes itself through a UDP socket pair on 127.0.0.1.
        let script = "mount -t tmpfs -o mode=0755 peerbench /run && ip link set lo up && exec \"$@\""
        let argv =
            [
                unshare, "--user", "--map-root-user", "--net", "--mount", "--propagation", "private", "--",
                "/bin/sh", "-c", script, "sh", exe,
            ] + CommandLine.arguments.dropFirst()
        let cArgs = argv.map { strdup($0) } + [nil]
        execv(unshare, cArgs)
        // execv returns only on failure: carry on, and the testbed reports the privilege problem.
        unsetenv(marker)
    }

    private static let unshare = "/usr/bin/unshare"

    /// Whether this user may create a user namespace (disabled on some systems).
    private static func userNamespacesWork() -> Bool {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: unshare)
        p.arguments = ["--user", "--map-root-user", "--net", "/bin/true"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }
}
