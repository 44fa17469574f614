import Foundation
import PeerBenchCore
import PeerBenchJSON
import PeerBenchPlugin

/// The report as one self-contained HTML file: the figures' specifications and the
/// Vega/Vega-Lite/vega-embed bundle are inlined, so the page opens from a file with no
/// network. Tables (failed cells, manifests, warnings) are plain HTML.
enum ReportPage {
    /// - Parameters:
    ///   - figureFolder: the folder of the exported figures, relative to the page (for the links).
    ///   - javascript: the vega-embed bundle (ReportRenderer), inlined as is.
    static func html(
        data: ReportData, document: ComparisonDocument, figures: [ReportFigure],
        figureFolder: String, javascript: String, generatedAt: Date = Date()
    ) -> String {
        // The runs' notes (`run --note`) name the report: which run is which, months later.
        let notes = data.runs.compactMap { $0.manifest?["note"]?.stringValue }
        let title = "PeerBench report" + (notes.isEmpty ? "" : ": " + notes.joined(separator: " | "))
        var h = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(esc(title))</title>
            <style>\(style)</style>
            </head>
            <body>
            <h1>\(esc(title))</h1>

            """
        let notUsable = data.cells.filter { !$0.usable }.count
        h += "<p class=\"summary\">\(data.cellCount) cells from \(data.runs.count) run folder\(data.runs.count == 1 ? "" : "s") "
        h +=
            "(\(esc(data.runs.map(\.directory).joined(separator: ", ")))): \(data.cellCount - notUsable) ok or partial, \(notUsable) failed, timed out or unsupported. "
        h += "Generated \(esc(Manifest.rfc3339(generatedAt))) by peerbench \(esc(Manifest.peerbenchVersion)).</p>\n"
        h += warnings(data.warnings + document.warnings)
        h += "<nav><ul>" + figures.map { "<li><a href=\"#\(esc($0.name))\">\(esc($0.title))</a></li>" }.joined()
        h += "<li><a href=\"#failed-cells\">Failed and timed-out cells</a></li><li><a href=\"#measurement-floor\">Measurement floor</a></li>"
        h += "<li><a href=\"#manifest\">Manifest</a></li></ul></nav>\n"
        for f in figures { h += section(f, folder: figureFolder) }
        h += failures(data)
        h += floor(document)
        h += manifests(data)
        h += scripts(figures, javascript: javascript)
        h += "</body>\n</html>\n"
        return h
    }

    static func warnings(_ list: [String]) -> String {
        guard !list.isEmpty else { return "<section id=\"warnings\"><h2>Warnings</h2><p>None.</p></section>\n" }
        return "<section id=\"warnings\" class=\"warnings\"><h2>Warnings</h2><ul>"
            + list.map { "<li>\(esc($0))</li>" }.joined() + "</ul></section>\n"
    }

    static func section(_ f: ReportFigure, folder: String) -> String {
        var s = "<section id=\"\(esc(f.name))\" class=\"figure-section\"><h2>\(esc(f.title))</h2>\n<p class=\"caption\">\(esc(f.caption))</p>\n"
        if let missing = f.missing {
            s += "<p class=\"missing\" data-figure-missing=\"\(esc(f.name))\">\(esc(missing))</p>\n"
        } else {
            let base = folder + "/" + f.name
            s += "<div class=\"figure\" id=\"fig-\(esc(f.name))\"></div>\n"
            s += "<p class=\"exports\">For papers and editing: <a href=\"\(esc(base)).svg\">SVG</a> · <a href=\"\(esc(base)).png\">PNG</a> · "
            s += "<a href=\"\(esc(base)).vl.json\">Vega-Lite spec</a></p>\n"
        }
        return s + "</section>\n"
    }

    static func failures(_ data: ReportData) -> String {
        let list = data.finalFailures
        var s = "<section id=\"failed-cells\"><h2>Failed and timed-out cells</h2>\n"
        guard !list.isEmpty || data.failuresNotListed > 0 else { return s + "<p>Every cell ended ok or partial.</p></section>\n" }
        s += "<table><thead><tr><th>scenario</th><th>transport</th><th>repetition</th><th>status</th><th>error</th><th>run</th></tr></thead><tbody>\n"
        for f in list {
            s +=
                "<tr><td>\(esc(f.scenario))</td><td>\(esc(f.transport))</td><td>\(f.repetition)</td><td class=\"status-\(esc(f.status))\">\(esc(f.status))</td>"
            s += "<td>\(esc(f.error))</td><td>\(esc(f.run))</td></tr>\n"
        }
        s += "</tbody></table>\n"
        if data.failuresNotListed > 0 {
            s +=
                "<p>\(data.failuresNotListed) more cells did not end ok; the first \(ReportData.maxFailuresListed) are listed (see records.jsonl for all).</p>\n"
        }
        return s + "</section>\n"
    }

    /// What the harness could not resolve (docs/COMPARE.md), as the verdicts applied it.
    static func floor(_ document: ComparisonDocument) -> String {
        var s = "<section id=\"measurement-floor\"><h2>Measurement floor</h2>\n"
        guard let f = document.measurementFloor else {
            return s
                + "<p class=\"missing\">No manifest of these runs records a measurement floor (runs older than it); the verdicts apply none.</p></section>\n"
        }
        func ms(_ x: Double?) -> String { x.map { String(format: "%.4g", $0) } ?? "-" }
        s += "<p>From \(f.runs) manifest\(f.runs == 1 ? "" : "s"). A difference in a time metric (RTT p50/p99, jitter, connect time, RTT probes) "
        s += "whose 95 % interval does not clear the pair's floor (the larger loopback RTT floor of the two transports, plus the emulator's release "
        s += "error, plus the clock; at p99 for RTT p99, else at p50) is no difference, with the reason <code>below_floor</code>.</p>\n"
        s += "<table class=\"manifest\"><thead><tr><th>transport</th><th>loopback RTT p50 (ms)</th><th>p99 (ms)</th></tr></thead><tbody>"
        s += f.transports.map { "<tr><td>\(esc($0.label))</td><td>\(ms($0.p50Ms))</td><td>\(ms($0.p99Ms))</td></tr>" }.joined()
        s += "</tbody></table>\n<p>Emulator release error p50 \(ms(f.emulatorReleaseP50Ms)) ms, p99 \(ms(f.emulatorReleaseP99Ms)) ms"
        s += f.emulatorReleaseP50Ms == nil ? " (no emulated link)" : ""
        s += "; clock (successive reads, p99) \(ms(f.clockMs)) ms.</p>\n"
        s += f.notes.map { "<p class=\"missing\">\(esc($0))</p>\n" }.joined()
        let below = document.scenarios.flatMap(\.pairs).filter { $0.reason == ComparisonFloor.belowFloor }.count
        s +=
            "<p>\(below) pair\(below == 1 ? "" : "s") that the test alone would call a difference \(below == 1 ? "is" : "are") below the floor.</p>\n"
        return s + "</section>\n"
    }

    static func manifests(_ data: ReportData) -> String {
        var s = "<section id=\"manifest\"><h2>Manifest</h2>\n"
        for run in data.runs {
            s += "<h3>\(esc(run.directory))</h3>\n"
            guard let m = run.manifest else {
                s += "<p class=\"missing\">No manifest.json in this folder.</p>\n"
                continue
            }
            var rows: [(String, String)] = []
            for key in [
                "run_id", "status", "matrix_file", "matrix_hash", "link_mode", "seed", "repetitions", "cells_total",
                "started_at", "ended_at", "shard",
            ] {
                if let v = m[key], !v.isNull { rows.append((key, text(v))) }
            }
            if let cl = m["command_line"]?.arrayValue { rows.append(("command_line", cl.compactMap(\.stringValue).joined(separator: " "))) }
            if let summary = m["summary"]?.objectValue {
                rows.append(("summary", summary.map { "\($0.key) \(text($0.value))" }.joined(separator: ", ")))
            }
            if let versions = m["versions"]?.objectValue {
                for v in versions { rows.append(("version of " + v.key, text(v.value))) }
            }
            if let host = m["host"]?.objectValue {
                rows.append(("host", host.map { "\($0.key): \(text($0.value))" }.joined(separator: "; ")))
            }
            if let joined = run.samplesJoined {
                rows.append(("samples.jsonl", "\(joined) lines joined to usable records"))
            } else {
                rows.append(("samples.jsonl", "absent"))
            }
            s += "<table class=\"manifest\"><tbody>" + rows.map { "<tr><th>\(esc($0.0))</th><td>\(esc($0.1))</td></tr>" }.joined()
            s += "</tbody></table>\n"
        }
        return s + "</section>\n"
    }

    static func text(_ v: JSONValue) -> String { v.stringValue ?? v.compactText }

    /// Specs as JSON in a data block, the library bundle, and the few lines that embed
    /// each figure and record in the DOM how many were drawn (the browser test reads it).
    static func scripts(_ figures: [ReportFigure], javascript: String) -> String {
        var specs = JSONObject()
        for f in figures { if let spec = f.spec { specs[f.name] = spec } }
        // "<" only occurs inside JSON strings, where \u003c is the same character: no "</script>" can end the block early.
        let json = JSONValue.object(specs).compactText.replacingOccurrences(of: "<", with: "\\u003c")
        let bundle = javascript.replacingOccurrences(of: "</script", with: "<\\/script", options: .caseInsensitive)
        return """
            <script type="application/json" id="peerbench-figures">\(json)</script>
            <script>\(bundle)</script>
            <script>\(embed)</script>

            """
    }

    static let embed = """
        (function () {
          "use strict";
          var specs = JSON.parse(document.getElementById("peerbench-figures").textContent);
          var names = Object.keys(specs);
          var options = {renderer: "svg", actions: {export: true, source: true, compiled: false, editor: false}};
          Promise.allSettled(names.map(function (name) { return vegaEmbed("#fig-" + name, specs[name], options); }))
            .then(function (results) {
              var drawn = 0;
              results.forEach(function (r, i) {
                if (r.status === "fulfilled") { drawn += 1; return; }
                console.error("figure " + names[i] + " could not be drawn: " + r.reason);
                document.getElementById("fig-" + names[i]).textContent = "This figure could not be drawn: " + r.reason;
              });
              document.body.setAttribute("data-figures", String(names.length));
              document.body.setAttribute("data-figures-drawn", String(drawn));
            });
        })();
        """

    static let style = """
        body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#222}
        h1{margin-bottom:.2rem}h2{margin-top:2.2rem;border-bottom:1px solid #ddd}
        nav ul{display:flex;flex-wrap:wrap;gap:.4rem 1.2rem;padding:0;list-style:none}
        .caption{color:#555;max-width:60rem}.missing{background:#f6f2e4;border-left:4px solid #c9b77a;padding:.6rem 1rem}
        .warnings{background:#fdf0ef;border-left:4px solid #d73027;padding:.2rem 1rem}
        .exports{font-size:.9rem}table{border-collapse:collapse;font-size:.9rem}
        th,td{border:1px solid #ddd;padding:.25rem .5rem;text-align:left;vertical-align:top}
        .status-failed,.status-timeout{color:#b2182b;font-weight:600}
        """

    /// HTML-escapes text for element content and attribute values.
    static func esc(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }
}
