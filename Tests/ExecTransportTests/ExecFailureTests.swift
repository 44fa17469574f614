import ExecTransport
import Foundation
import PeerBenchCore
import PeerBenchPlugin
import PeerBenchSystem
import Testing
import TransportTestSupport

/// Every way an external plugin can go wrong ends as a `failed` record whose error
/// quotes what went wrong, and the run goes on to the next cell.
@Suite(.timeLimit(.minutes(3))) struct ExecFailureTests {
    /// A server that prints its ready line and exits once the client is done.
    static let okServer = #"echo '{"port": 9}'; cat > /dev/null; sleep 0.2"#
    /// A client printing a valid, fixed measurement.
    static let okClient =
        #"cat > /dev/null; echo '{"connect_ms": 0.5, "rtt_ns": [1000000, 3000000], "bulk_ns": 1000000000, "delivery": {"sent_messages": 10, "received_messages": 9, "sent_bytes": 1250000, "received_bytes": 1125000}, "extra": {"mine": {"x": 1}}}'"#

    @Test func validOutputBecomesTheRecord() async throws {
        let d = try ScriptDirectory(["server": Self.okServer, "client": Self.okClient])
        let records = try await runMatrix([ExecPlugin.self], transports: "[\(d.transport(label: "ok", server: ["./server"], client: ["./client"]))]")
        let r = try #require(records.first)
        #expect(r["status"] == "ok", "\(r["error"] ?? .null)")
        #expect(r["connect_ms"]?.doubleValue == 0.5)
        #expect(r["rtt_ms"]?["count"] == 2)
        #expect(r["rtt_ms"]?["mean"]?.doubleValue == 2)
        #expect(r["throughput_mbps"]?.doubleValue == 9)  // 1 125 000 B in 1 s
        #expect(r["delivery"]?["loss_ratio"]?.doubleValue == 0.1)
        #expect(r["extra"]?["mine"]?["x"] == 1)
    }

    /// Exit status 127 is the plugin's way to say "not this cell": `unsupported`, not `failed`.
    @Test func exitStatus127IsUnsupported() async throws {
        let d = try ScriptDirectory(["server": Self.okServer, "notmine": "cat > /dev/null; echo 'no IPv6 here' >&2; exit 127"])
        let records = try await runMatrix(
            [ExecPlugin.self], transports: "[\(d.transport(label: "nope", server: ["./server"], client: ["./notmine"]))]")
        let r = try #require(records.first)
        #expect(r["status"] == "unsupported")
        #expect(
            r["error"]?.stringValue?.contains("the client command ./notmine cannot run this cell (exit status 127); stderr: no IPv6 here") == true,
            "\(r["error"] ?? .null)")
    }

    @Test func missingCommandFails() async throws {
        let d = try ScriptDirectory(["server": Self.okServer])
        let records = try await runMatrix(
            [ExecPlugin.self],
            transports: """
                [\(d.transport(label: "missing", server: ["./server"], client: ["./no-such-client"])),
                 \(d.transport(label: "missing-path", server: ["./server"], client: ["no-such-program-anywhere"])),
                 \(d.transport(label: "next", server: ["./server"], client: ["/bin/true"]))]
                """)
        #expect(records.map { $0["status"] } == ["failed", "failed", "failed"])
        #expect(records[0]["error"]?.stringValue?.contains("the client command ./no-such-client was not found") == true)
        #expect(records[1]["error"]?.stringValue?.contains("no-such-program-anywhere was not found on PATH") == true)
        // The run went on: the third cell ran its client, which printed nothing.
        #expect(records[2]["error"]?.stringValue?.contains("printed nothing on stdout") == true)
    }

    @Test func nonZeroExitQuotesStderr() async throws {
        let d = try ScriptDirectory([
            "server": Self.okServer, "client": "echo 'cannot reach the peer: boom' >&2; exit 3",
            "badserver": "echo 'address already in use' >&2; exit 4",
        ])
        let records = try await runMatrix(
            [ExecPlugin.self],
            transports: """
                [\(d.transport(label: "client-exit", server: ["./server"], client: ["./client"])),
                 \(d.transport(label: "server-exit", server: ["./badserver"], client: ["./client"]))]
                """)
        #expect(records.map { $0["status"] } == ["failed", "failed"])
        #expect(records[0]["error"] == "exec: the client command ./client exited with status 3; stderr: cannot reach the peer: boom")
        #expect(
            records[1]["error"]?.stringValue?.contains(
                "the server command ./badserver exited with status 4 before printing its ready line; stderr: address already in use") == true)
    }

    @Test func hangingClientIsKilledAtTheDeadline() async throws {
        // The client starts a grandchild that also hangs: killing the process group ends both.
        let d = try ScriptDirectory([
            "server": Self.okServer, "client-ok": Self.okClient,
            "client": "echo 'working...' >&2; sleep 317 & sleep 317; wait",
        ])
        let t0 = MonotonicClock.now()
        let records = try await runMatrix(
            [ExecPlugin.self],
            transports: """
                [\(d.transport(label: "hang", server: ["./server"], client: ["./client"])),
                 \(d.transport(label: "next", server: ["./server"], client: ["./client-ok"]))]
                """, timeout: 3)
        let elapsed = Double(MonotonicClock.elapsed(since: t0)) / 1e9
        #expect(records[0]["status"] == "failed")
        let error = records[0]["error"]?.stringValue ?? ""
        #expect(error.hasPrefix("exec: the client command ./client did not finish within "), "\(error)")
        #expect(error.hasSuffix(" s (the cell's deadline); killed its process group; stderr: working..."), "\(error)")
        // Killed 0.3 s before the 3 s cell deadline (10 % margin); the figure counts from the
        // client's start, which comes after the cell's, so it is at most 2.7 s when the
        // kill comes on time. A loaded host wakes the killer late (2.8 s with the timing
        // suites four at a time beside other work, issue 42); what the plugin must do is
        // kill before the cell's deadline, so the cell fails with its own message above,
        // not as a timeout.
        let seconds = Double(error.split(separator: " ")[9]) ?? 0
        #expect(seconds > 0.5 && seconds < 3, "\(seconds)")
        #expect(records[1]["status"] == "ok", "the run went on to the next cell")
        #expect(elapsed < 8, "both cells within their 3 s deadlines (took \(elapsed) s)")
        // No `sleep 317` survived the kill. (A duration no other test uses: pgrep sees the
        // whole machine, and a `sleep 300` another run left behind failed this once in CI.)
        let ps = Process()
        ps.executableURL = URL(fileURLWithPath: "/usr/bin/pgrep")
        ps.arguments = ["-f", "^sleep 317$"]
        let out = Pipe()
        ps.standardOutput = out
        try ps.run()
        ps.waitUntilExit()
        #expect(String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).isEmpty)
    }

    @Test func garbageOutputFails() async throws {
        let d = try ScriptDirectory([
            "server": Self.okServer,
            "client": "echo 'Connecting to host 127.0.0.1'; echo 'done: 42 Mbit/s'",
            "typo": #"echo '{"conect_ms": 1}'"#,
            "badready": "echo 'listening on port 5201'; sleep 5",
        ])
        let records = try await runMatrix(
            [ExecPlugin.self],
            transports: """
                [\(d.transport(label: "garbage", server: ["./server"], client: ["./client"])),
                 \(d.transport(label: "typo", server: ["./server"], client: ["./typo"])),
                 \(d.transport(label: "bad-ready", server: ["./badready"], client: ["./typo"]))]
                """)
        #expect(records.map { $0["status"] } == ["failed", "failed", "failed"])
        let e0 = records[0]["error"]?.stringValue ?? ""
        #expect(
            e0.contains("printed something that is not the measurement JSON")
                && e0.contains("stdout: Connecting to host 127.0.0.1 | done: 42 Mbit/s"), "\(e0)")
        #expect(records[1]["error"]?.stringValue?.contains(#"printed an unknown key "conect_ms""#) == true)
        #expect(
            records[2]["error"]?.stringValue?.contains(
                #"printed "listening on port 5201" as its first line; expected a JSON object such as {"port": 5201}"#) == true)
    }

    @Test func serverThatNeverExitsFailsAfterTheGrace() async throws {
        let d = try ScriptDirectory(["server": #"echo '{"port": 9}'; sleep 300"#, "client": Self.okClient])
        let records = try await runMatrix(
            [ExecPlugin.self],
            transports: "[\(d.transport(label: "lingering", server: ["./server"], client: ["./client"], extra: #", "serverExitGraceSeconds": 0.5"#))]"
        )
        #expect(records[0]["status"] == "failed")
        #expect(
            records[0]["error"]?.stringValue?.contains("the server command ./server was still running 0.5 s after the client finished; killed it")
                == true)
    }

    @Test func commandsReceiveTheCellDocument() async throws {
        // The client echoes back what it was handed, inside `extra`.
        let d = try ScriptDirectory([
            "server":
                #"test -s "$PEERBENCH_CELL_FILE" || exit 9; cat > /dev/null; echo '{"port": 7000, "token": "abc"}'; sleep 0.3; grep -q '"role": "server"' "$PEERBENCH_CELL_FILE""#,
            "client": #"printf '{"extra": {"cell": '; cat; printf '}}\n'"#,
        ])
        let records = try await runMatrix(
            [ExecPlugin.self],
            transports: "[\(d.transport(label: "doc", server: ["./server"], client: ["./client"], extra: #", "config": {"mode": "fast"}"#))]",
            counts: "[7]", sizes: "[64]", probes: 5)
        let r = try #require(records.first)
        #expect(r["status"] == "ok", "\(r["error"] ?? .null)")
        let cell = try #require(r["extra"]?["cell"])
        #expect(cell["schema"] == "peerbench.exec.cell/1")
        #expect(cell["role"] == "client")
        #expect(cell["cell_id"] == r["cell_id"])
        #expect(cell["seed"] == r["seed"])
        #expect(cell["payload"] == ["count": 7, "size": 64])
        #expect(cell["rtt_probes"] == 5)
        #expect(cell["server"] == ["host": "127.0.0.1", "port": 7000, "ready": ["port": 7000, "token": "abc"]])
        #expect(cell["config"] == ["mode": "fast"])
        #expect((cell["deadline_seconds"]?.doubleValue ?? 0) > 20)
        #expect(r["transport"]?["options"]?["config"] == ["mode": "fast"])
    }
}
