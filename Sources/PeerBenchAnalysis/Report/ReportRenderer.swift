import Foundation
import PeerBenchPlugin
import PeerBenchSystem

/// Runs the chart renderer (`scripts/render-figures.py`, vl-convert-python): each
/// `NAME.vl.json` becomes `NAME.svg` and `NAME.png`, and the page gets its offline
/// JavaScript bundle. Python hosts the chart engine only; what is drawn is decided in Swift.
public struct ReportRenderer: Sendable {
    static let scriptVariable = "PEERBENCH_RENDER_SCRIPT"
    static let scriptName = "render-figures.py"

    /// The renderer script.
    public var script: String
    /// The interpreter, `python3` on PATH unless `$PEERBENCH_PYTHON` says otherwise.
    public var python: String

    public init(script: String, python: String = ProcessInfo.processInfo.environment["PEERBENCH_PYTHON"] ?? "python3") {
        self.script = script
        self.python = python
    }

    /// Finds the script: `$PEERBENCH_RENDER_SCRIPT`; else `scripts/render-figures.py` or
    /// `share/peerbench/render-figures.py` next to the executable or in one of its
    /// ancestors (a checkout's `.build/release/peerbench`, or `PREFIX/bin/peerbench`),
    /// then upwards from the working directory, then the package this was compiled from.
    public static func locate() throws(ReportError) -> ReportRenderer {
        let fm = FileManager.default
        if let env = ProcessInfo.processInfo.environment[scriptVariable], !env.isEmpty {
            guard fm.fileExists(atPath: env) else { throw ReportError("$\(scriptVariable) = \(env): no such file") }
            return ReportRenderer(script: env)
        }
        if let found = BundledFiles.locate(["scripts/" + scriptName, "share/peerbench/" + scriptName]) {
            return ReportRenderer(script: found)
        }
        throw ReportError(
            "the chart renderer \(scriptName) was not found (looked in scripts/ and share/peerbench/ above the executable and the working directory); set $\(scriptVariable) to its path"
        )
    }

    /// Renders `specs` (paths of `NAME.vl.json`) to SVG and PNG beside them and returns
    /// the JavaScript bundle. The figures are shared out over one renderer process per
    /// core, largest specification first: one chart engine draws one figure at a time,
    /// and the largest figures take seconds.
    public func render(specs: [String], scratch: String) throws(ReportError) -> String {
        let bundlePath = scratch + "/.vega-bundle-\(getpid()).js"
        defer { try? FileManager.default.removeItem(atPath: bundlePath) }
        let groups = Self.share(specs, over: max(1, min(ProcessInfo.processInfo.activeProcessorCount, specs.count)))
        var running: [(process: Process, errors: String)] = []
        defer { for r in running { try? FileManager.default.removeItem(atPath: r.errors) } }
        for (i, group) in groups.enumerated() {
            // Errors to a file, not a pipe: nothing must wait on one process's pipe while another fills its own.
            let errors = scratch + "/.render-errors-\(getpid())-\(i).txt"
            guard FileManager.default.createFile(atPath: errors, contents: nil), let handle = FileHandle(forWritingAtPath: errors) else {
                throw ReportError("cannot write \(errors)")
            }
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = [python, script] + (i == 0 ? ["--bundle", bundlePath] : []) + group
            p.standardError = handle
            p.standardOutput = FileHandle.nullDevice
            do { try p.run() } catch {
                throw ReportError("cannot start \(python) \(script): \(error.localizedDescription)")
            }
            try? handle.close()
            running.append((p, errors))
        }
        var failure: ReportError?
        for (p, errors) in running {
            p.waitUntilExit()
            let message = String(decoding: FileManager.default.contents(atPath: errors) ?? Data(), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            guard failure == nil else { continue }
            switch p.terminationStatus {
            case 0: break
            case 3:
                failure = ReportError(
                    "\(message)\nThe figure specifications (*.vl.json) are written; the page and its SVG/PNG need vl-convert-python.")
            case 127: failure = ReportError("\(python) was not found: the report's chart renderer needs Python 3 (scripts/setup.sh installs it)")
            default: failure = ReportError("the chart renderer failed (\(script), exit \(p.terminationStatus)):\n\(message)")
            }
        }
        if let failure { throw failure }
        guard let js = FileManager.default.contents(atPath: bundlePath), !js.isEmpty else {
            throw ReportError("the chart renderer wrote no JavaScript bundle to \(bundlePath)")
        }
        return String(decoding: js, as: UTF8.self)
    }

    /// `specs` in `count` groups of about equal size (bytes of specification, a proxy for
    /// drawing time): the largest first, each to the lightest group. Never an empty group
    /// (the first, which writes the bundle, exists even without specs).
    static func share(_ specs: [String], over count: Int) -> [[String]] {
        let sized = specs.map { s in (s, (try? FileManager.default.attributesOfItem(atPath: s)[.size] as? Int) ?? 0) }
        var groups = [[String]](repeating: [], count: max(1, count)), load = [Int](repeating: 0, count: max(1, count))
        for (spec, size) in sized.sorted(by: { $0.1 > $1.1 }) {
            let lightest = load.indices.min { load[$0] < load[$1] }!
            groups[lightest].append(spec)
            load[lightest] += size
        }
        return [groups[0]] + groups.dropFirst().filter { !$0.isEmpty }
    }
}
