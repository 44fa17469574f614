import Foundation
import PeerBenchPlugin

/// Runs the chart renderer (`scripts/render-figures.py`, vl-convert-python): each
/// `NAME.vl.json` becomes `NAME.svg` and `NAME.png`, and the page gets its offline
/// JavaScript bundle. Python hosts the chart engine only; what is drawn is decided in Swift.
public struct ReportRenderer: Sendable {
    public static let scriptVariable = "PEERBENCH_RENDER_SCRIPT"
    public static let scriptName = "render-figures.py"

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
        throw ReportError("the chart renderer \(scriptName) was not found (looked in scripts/ and share/peerbench/ above the executable and the working directory); set $\(scriptVariable) to its path")
    }

    /// Renders `specs` (paths of `NAME.vl.json`) to SVG and PNG beside them and returns
    /// the JavaScript bundle.
    public func render(specs: [String], scratch: String) throws(ReportError) -> String {
        let bundlePath = scratch + "/.vega-bundle-\(getpid()).js"
        defer { try? FileManager.default.removeItem(atPath: bundlePath) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [python, script, "--bundle", bundlePath] + specs
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        do { try p.run() } catch {
            throw ReportError("cannot start \(python) \(script): \(error.localizedDescription)")
        }
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        p.waitUntilExit()
        switch p.terminationStatus {
        case 0: break
        case 3: throw ReportError("\(message)\nThe figure specifications (*.vl.json) are written; the page and its SVG/PNG need vl-convert-python.")
        case 127: throw ReportError("\(python) was not found: the report's chart renderer needs Python 3 (scripts/setup.sh installs it)")
        default: throw ReportError("the chart renderer failed (\(script), exit \(p.terminationStatus)):\n\(message)")
        }
        guard let js = FileManager.default.contents(atPath: bundlePath), !js.isEmpty else {
            throw ReportError("the chart renderer wrote no JavaScript bundle to \(bundlePath)")
        }
        return String(decoding: js, as: UTF8.self)
    }
}
