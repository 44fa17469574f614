import Foundation
import Testing

/// Whether `python3` can import vl-convert (the report's chart renderer).
let vlConvertAvailable: Bool = {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["python3", "-c", "import vl_convert"]
    p.standardError = FileHandle.nullDevice
    guard (try? p.run()) != nil else { return false }
    p.waitUntilExit()
    return p.terminationStatus == 0
}()

/// `peerbench report`: the page in a real browser with no network, the exported
/// figures as images, missing samples, bad input.
@Suite(.serialized, .enabled(if: vlConvertAvailable, "needs python3 with vl-convert-python (scripts/setup.sh installs it)"))
struct ReportCommandTests {
    static let allFigures = [
        "verdicts", "throughput-vs-distance", "rtt-cdf", "rtt-vs-distance", "loss-vs-distance",
        "connect-time", "uwb-availability", "uwb-error", "bulk-series",
    ]

    @Test(.enabled(if: HeadlessChromium.binary != nil, "needs Debian's chromium (scripts/setup.sh installs it)"))
    func everyFigureDrawsInHeadlessChromiumWithoutNetwork() throws {
        let dir = CLI.tempDir()
        try ReportFixture.write(to: dir + "/run")
        let r = try CLI.run(["report", dir + "/run", "--out", dir + "/out/report.html"])
        #expect(r.status == 0, "\(r.stderr)")
        let html = try String(contentsOfFile: dir + "/out/report.html", encoding: .utf8)
        // Offline by construction: nothing is loaded from elsewhere.
        #expect(!html.contains("<script src"))
        #expect(!html.contains("<link "))

        let page = try HeadlessChromium.load(dir + "/out/report.html")
        #expect(HeadlessChromium.errors(page.console) == [], "console: \(page.console)")
        #expect(page.dom.contains("data-figures=\"\(Self.allFigures.count)\""), "\(page.dom.prefix(400))")
        #expect(page.dom.contains("data-figures-drawn=\"\(Self.allFigures.count)\""))
        // vega-embed draws each chart as one <svg class="marks"> inside the figure's div.
        #expect(HeadlessChromium.count("class=\"marks\"", in: page.dom) == Self.allFigures.count)
        for name in Self.allFigures {
            let div = page.dom.range(of: "id=\"fig-\(name)\"")
            #expect(div != nil, "figure \(name) has no element")
            if let div {
                let after = page.dom[div.upperBound...].prefix(4000)
                #expect(after.contains("<svg"), "figure \(name) did not draw")
            }
        }
        // The picks (scenario, cell, payload, metric) are real drop-down lists.
        #expect(HeadlessChromium.count("<select", in: page.dom) >= 6)
        // Failed and timed-out cells are listed with their errors; the manifest is shown.
        #expect(page.dom.contains("quic: handshake failed: peer closed"))
        #expect(page.dom.contains("cell did not finish within 30 s"))
        #expect(page.dom.contains("peerbench run fixture.json --repetitions 4"))
        #expect(page.dom.contains("0.12.1"))
        // The measurement floor the verdicts applied (the manifest's), with the emulator's error.
        #expect(page.dom.contains("<h2>Measurement floor</h2>"))
        #expect(page.dom.contains("<td>quic</td><td>0.062</td><td>0.48</td>"))
        #expect(page.dom.contains("Emulator release error p50 0.035 ms, p99 0.094 ms"))
    }

    /// The field study's shape, 4 places x 3 distances x 9 payloads = 108 scenarios: the
    /// verdict overview draws one panel per place and distance, so it stays a few hundred
    /// pixels tall (one row per scenario, as before, made it over 1 500 px), and a
    /// drop-down narrows it to one place.
    @Test(.enabled(if: HeadlessChromium.binary != nil, "needs Debian's chromium (scripts/setup.sh installs it)"))
    func theVerdictOverviewStaysReadableWithAHundredScenarios() throws {
        let dir = CLI.tempDir()
        try CLICompareTests.runFolder(
            dir + "/run", environments: ["free-field", "forest", "inner-city", "underground"], distances: [1, 5, 10],
            sizes: [128, 256, 512, 1024, 2048, 4096, 8192, 9216, 16384],
            rows: [("tcp", [10, 11, 12, 13, 14]), ("udp", [20, 21, 22, 23, 24]), ("quic", [15, 16, 17, 18, 19])])
        let r = try CLI.run(["report", dir + "/run", "--out", dir + "/report.html"])
        #expect(r.status == 0, "\(r.stderr)")
        let page = try HeadlessChromium.load(dir + "/report.html")
        #expect(HeadlessChromium.errors(page.console) == [], "console: \(page.console)")
        let div = try #require(page.dom.range(of: "id=\"fig-verdicts\""))
        let after = String(page.dom[div.upperBound...].prefix(200_000))
        // vega-embed's <svg ... class="marks" width="W" height="H" ...>: the drawn size.
        let svg = try #require(after.range(of: "class=\"marks\""))
        let tag = String(after[svg.lowerBound...].prefix { $0 != ">" })
        func attribute(_ name: String) -> Double? {
            guard let a = tag.range(of: " \(name)=\"") else { return nil }
            return Double(tag[a.upperBound...].prefix { $0 != "\"" })
        }
        let height = try #require(attribute("height"), "\(tag)")
        let width = try #require(attribute("width"), "\(tag)")
        #expect(height < 900, "108 scenarios in 4 x 3 panels of 9 payloads: \(height) px tall")
        #expect(width < 1_200, "\(width) px wide")
        #expect(after.contains("all places") && after.contains("<option value=\"underground\">"), "a place pick")
        // Places and distances in the matrix's order, not the alphabet's.
        let order = ["free-field", "forest", "inner-city", "underground", "'1 m'", "'5 m'", "'10 m'"]
            .map { after.range(of: "Title text '\($0.replacingOccurrences(of: "'", with: ""))'")?.lowerBound }
        #expect(
            order.allSatisfy { $0 != nil } && zip(order.dropFirst(4), order.dropFirst(5)).allSatisfy { $0! < $1! }
                && zip(order.prefix(4), order.prefix(4).dropFirst()).allSatisfy { $0! < $1! }, "\(order)")
    }

    /// The same check fails when the page cannot draw: here with the bundle removed, as
    /// a page relying on a CDN would be without network.
    @Test(.enabled(if: HeadlessChromium.binary != nil, "needs Debian's chromium (scripts/setup.sh installs it)"))
    func aPageWithoutItsBundleIsCaught() throws {
        let dir = CLI.tempDir()
        try ReportFixture.write(to: dir + "/run", samples: false)
        let r = try CLI.run(["report", dir + "/run", "--out", dir + "/report.html"])
        #expect(r.status == 0, "\(r.stderr)")
        var html = try String(contentsOfFile: dir + "/report.html", encoding: .utf8)
        let start = try #require(html.range(of: "<script>"))
        let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        html.replaceSubrange(start.lowerBound..<end.upperBound, with: "<script src=\"https://cdn.example.invalid/vega-embed.js\"></script>")
        try CLI.write(html, to: dir + "/broken.html")
        let page = try HeadlessChromium.load(dir + "/broken.html")
        #expect(HeadlessChromium.errors(page.console).contains { $0.contains("vegaEmbed is not defined") }, "\(page.console)")
        #expect(HeadlessChromium.count("class=\"marks\"", in: page.dom) == 0)
    }

    /// A run with workloads gains a figure per workload metric, one panel per place and
    /// workload, drawn like the others; a report of uploads at the same path afterwards
    /// has none of them, and their exports are gone (the fixture above draws exactly
    /// `allFigures`).
    @Test(.enabled(if: HeadlessChromium.binary != nil, "needs Debian's chromium (scripts/setup.sh installs it)"))
    func workloadMetricsHaveFiguresOnlyWhenTheRunHasThem() throws {
        let dir = CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try CLICompareTests.runFolder(dir + "/run", distances: [1, 10], rows: [("tcp", [10, 11, 12, 13]), ("quic", [15, 16, 17, 18])])
        // Each upload record becomes an rpc one and a call one (their own cell ids).
        var lines: [String] = []
        for line in try String(contentsOfFile: dir + "/run/records.jsonl", encoding: .utf8).split(separator: "\n") {
            let r = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let slow = (r["transport"] as? [String: Any])?["label"] as? String == "tcp" ? 3.0 : 1.0
            let rep = Double(r["repetition"] as? Int ?? 0)
            func summary(_ v: Double) -> [String: Any] {
                ["count": 50, "min": v / 2, "mean": v, "p50": v, "p90": v, "p99": v, "max": v, "stddev": 1.0]
            }
            var rpc = r, call = r
            rpc["cell_id"] = "\(r["cell_id"]!)-rpc"
            rpc["workload"] = ["name": "rpc", "kind": "request-response"]
            rpc["request_response_ms"] = summary(20 * slow + rep)
            call["cell_id"] = "\(r["cell_id"]!)-call"
            call["workload"] = ["name": "call", "kind": "isochronous"]
            call["frames"] = ["sent": 300, "received": 300, "late": Int(5 * slow + rep), "lost": 0, "deadline_ms": 100]
            call["frame_delay_ms"] = summary(40 * slow + rep)
            for w in [rpc, call] { lines.append(String(decoding: try JSONSerialization.data(withJSONObject: w), as: UTF8.self)) }
        }
        try CLI.write(lines.joined(separator: "\n") + "\n", to: dir + "/run/records.jsonl")
        let r = try CLI.run(["report", dir + "/run", "--out", dir + "/report.html"])
        #expect(r.status == 0, "\(r.stderr)")
        let page = try HeadlessChromium.load(dir + "/report.html")
        #expect(HeadlessChromium.errors(page.console) == [], "console: \(page.console)")
        let workloadFigures = ["request-response-vs-distance", "frame-delay-vs-distance", "late-frames-vs-distance"]
        for name in workloadFigures {
            let div = try #require(page.dom.range(of: "id=\"fig-\(name)\""), "figure \(name) has no element")
            let after = page.dom[div.upperBound...].prefix(20_000)
            #expect(after.contains("<svg"), "figure \(name) did not draw")
            #expect(FileManager.default.fileExists(atPath: dir + "/report-figures/\(name).png"))
        }
        // One panel per place and workload: only the rpc cells have transaction times.
        let rpcFigure = try #require(page.dom.range(of: "id=\"fig-request-response-vs-distance\""))
        let panels = String(page.dom[rpcFigure.upperBound...].prefix(20_000))
        #expect(panels.contains("forest · rpc") && !panels.contains("forest · call"), "\(panels.prefix(600))")

        try CLICompareTests.runFolder(dir + "/uploads", distances: [1, 10], rows: [("tcp", [10, 11, 12, 13])])
        #expect(try CLI.run(["report", dir + "/uploads", "--out", dir + "/report.html"]).status == 0)
        let html = try String(contentsOfFile: dir + "/report.html", encoding: .utf8)
        for name in workloadFigures {
            #expect(!html.contains("id=\"\(name)\""), "an upload-only run has no \(name) section")
            #expect(!FileManager.default.fileExists(atPath: dir + "/report-figures/\(name).png"), "stale \(name).png")
        }
    }

    @Test func exportedFiguresAreImagesAndEditableSpecs() throws {
        let dir = CLI.tempDir()
        try ReportFixture.write(to: dir + "/run")
        let r = try CLI.run(["report", dir + "/run", "--out", dir + "/paper.html"])
        #expect(r.status == 0, "\(r.stderr)")
        let folder = dir + "/paper-figures"
        for name in Self.allFigures {
            let png = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(name).png"))
            #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "\(name).png signature")
            // IHDR: width and height, big-endian, at bytes 16..<24.
            let bytes = Array(png)
            let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }, height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
            #expect(width >= 200 && height >= 100, "\(name).png is \(width)x\(height)")
            #expect(png.count > 5_000, "\(name).png has \(png.count) bytes")

            let svg = try String(contentsOfFile: "\(folder)/\(name).svg", encoding: .utf8)
            // The root element is <svg> (after an optional XML declaration), and it is closed.
            let body = svg.hasPrefix("<?xml") ? String(svg[svg.range(of: "?>")!.upperBound...]) : svg
            #expect(body.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("<svg"), "\(name).svg root: \(svg.prefix(60))")
            #expect(svg.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("</svg>"))
            #expect(svg.contains("<path") || svg.contains("<line"), "\(name).svg draws nothing")

            let spec = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(name).vl.json"))) as? [String: Any]
            #expect((spec?["$schema"] as? String)?.contains("vega-lite") == true)
            #expect(((spec?["data"] as? [String: Any])?["values"] as? [Any])?.isEmpty == false, "\(name).vl.json has no data")
        }
        // The comparison the figures were drawn from is kept beside them.
        let doc = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/comparison.json"))) as? [String: Any]
        #expect((doc?["scenarios"] as? [Any])?.count == 12)  // 4 environment x distance, each 2 payloads + uwb "-"
    }

    @Test func missingSamplesAreNamedPerFigureNotAFailure() throws {
        let dir = CLI.tempDir()
        // First a report of a run with samples at the same path: its RTT and series exports must not survive.
        try ReportFixture.write(to: dir + "/with", repetitions: 2, samples: true)
        #expect(try CLI.run(["report", dir + "/with", "--out", dir + "/report.html"]).status == 0)
        #expect(FileManager.default.fileExists(atPath: dir + "/report-figures/rtt-cdf.png"))
        try ReportFixture.write(to: dir + "/run", repetitions: 2, samples: false)
        let r = try CLI.run(["report", dir + "/run", "--out", dir + "/report.html"])
        #expect(r.status == 0, "\(r.stderr)")
        let html = try String(contentsOfFile: dir + "/report.html", encoding: .utf8)
        for name in ["rtt-cdf", "bulk-series"] {
            #expect(html.contains("data-figure-missing=\"\(name)\""), "\(name) should say it has no samples")
            for ext in ["png", "svg", "vl.json"] {
                #expect(!FileManager.default.fileExists(atPath: dir + "/report-figures/\(name).\(ext)"), "stale \(name).\(ext)")
            }
        }
        #expect(html.contains("No samples.jsonl in \(dir)/run"))
        #expect(FileManager.default.fileExists(atPath: dir + "/report-figures/throughput-vs-distance.png"))
        // Two repetitions cannot give a verdict: the page says so.
        #expect(html.contains("a verdict needs at least 4 on each side"))
        #expect(r.stderr.contains("rtt-cdf: not drawn: No samples.jsonl"))
    }

    @Test func badInputNamesTheFolderOrFileAndKeepsTheOldPage() throws {
        let dir = CLI.tempDir()
        let missing = try CLI.run(["report", dir + "/nope", "--out", dir + "/report.html"])
        #expect(missing.status == 2)
        #expect(missing.stderr == "peerbench: error: \(dir)/nope: no such folder\n")

        try FileManager.default.createDirectory(atPath: dir + "/empty", withIntermediateDirectories: true)
        let empty = try CLI.run(["report", dir + "/empty", "--out", dir + "/report.html"])
        #expect(empty.status == 2)
        #expect(empty.stderr.hasPrefix("peerbench: error: \(dir)/empty: no records.jsonl here"))

        // A good report first, then a run whose journal is corrupt in the middle.
        try ReportFixture.write(to: dir + "/run", repetitions: 1, samples: false)
        #expect(try CLI.run(["report", dir + "/run", "--out", dir + "/report.html"]).status == 0)
        let good = try Data(contentsOf: URL(fileURLWithPath: dir + "/report.html"))
        var lines = try String(contentsOfFile: dir + "/run/records.jsonl", encoding: .utf8).split(separator: "\n").map(String.init)
        lines[1] = "{\"schema\": \"peerbench.record/1\", "
        try CLI.write(lines.joined(separator: "\n") + "\n", to: dir + "/run/records.jsonl")
        let corrupt = try CLI.run(["report", dir + "/run", "--out", dir + "/report.html"])
        #expect(corrupt.status == 2)
        #expect(corrupt.stderr.hasPrefix("peerbench: error: \(dir)/run/records.jsonl line 2: invalid JSON"), "\(corrupt.stderr)")
        #expect(!corrupt.stderr.contains("Fatal error"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/report.html")) == good)

        // A torn last line (a crash mid-write) is skipped with a warning, as compare does.
        lines.remove(at: 1)
        lines[lines.count - 1] = String(lines[lines.count - 1].prefix(30))
        try CLI.write(lines.joined(separator: "\n"), to: dir + "/run/records.jsonl")
        let torn = try CLI.run(["report", dir + "/run", "--out", dir + "/report.html"])
        #expect(torn.status == 0, "\(torn.stderr)")
        #expect(torn.stderr.contains("records.jsonl line \(lines.count): invalid JSON"))
        #expect(torn.stderr.contains("a torn last line, skipped"))

        let other = try CLI.run(["report", dir + "/run", "--out", dir])
        #expect(other.status == 2)
        #expect(other.stderr.contains("--out \(dir): is a folder"))
    }
}
