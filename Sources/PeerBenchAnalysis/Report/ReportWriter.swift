import Foundation
import PeerBenchJSON
import PeerBenchPlugin

/// `peerbench report`: reads run folders, builds the comparison and the figures, writes
/// each figure's Vega-Lite spec, SVG and PNG into `<page stem>-figures/` and then the
/// page itself (atomically, last: a page on disk always has its figures beside it).
public enum ReportWriter {
    /// What was written, for the command's summary line.
    public struct Written: Sendable {
        public var page: String
        public var figureFolder: String
        public var drawn: [String]
        /// Figure name and why it has nothing to draw.
        public var missing: [(String, String)]
        public var warnings: [String]
        public var cells: Int
    }

    /// - Parameter measured: field measurements against these runs (`report --measured`):
    ///   adds the `measured-vs-emulated` box plots and `measured-comparison.json`.
    public static func write(
        directories: [String], page: String, alpha: Double = 0.05,
        renderer: ReportRenderer? = nil, measured: MeasuredComparison? = nil
    ) throws(ReportError) -> Written {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: page, isDirectory: &isDir), isDir.boolValue {
            throw ReportError("--out \(page): is a folder; give the HTML file to write, e.g. \(page)/report.html")
        }
        let pageURL = URL(fileURLWithPath: page)
        let parent = pageURL.deletingLastPathComponent().path
        do { try fm.createDirectory(atPath: parent, withIntermediateDirectories: true) } catch {
            throw ReportError("--out \(page): cannot create folder \(parent): \(error.localizedDescription)")
        }
        let renderer = try { () throws(ReportError) -> ReportRenderer in
            if let renderer { return renderer }
            return try ReportRenderer.locate()
        }()

        let (data, comparison) = try ReportInput.read(directories)
        let document = ComparisonDocument.build(comparison, alpha: alpha)
        let figures = ReportFigures.all(data: data, document: document) + (measured.map { [ReportFigures.measured($0)] } ?? [])

        let stem = pageURL.deletingPathExtension().lastPathComponent
        let folderName = stem + "-figures"
        let folder = parent + "/" + folderName
        do { try fm.createDirectory(atPath: folder, withIntermediateDirectories: true) } catch {
            throw ReportError("cannot create \(folder): \(error.localizedDescription)")
        }
        let specs = try writeSpecs(figures, to: folder)
        try writeAtomically(encode(document), to: folder + "/comparison.json")
        if let measured {
            do {
                try writeAtomically(try JSONCoding.encode(MeasuredDocument(measured)).prettyText, to: folder + "/measured-comparison.json")
            } catch let e as ReportError {
                throw e
            } catch {
                throw ReportError("cannot encode the measured comparison: \(error)")
            }
        } else {
            try? fm.removeItem(atPath: folder + "/measured-comparison.json")
        }
        let javascript = try renderer.render(specs: specs, scratch: folder)
        let html = ReportPage.html(
            data: data, document: document, figures: figures, figureFolder: folderName,
            javascript: javascript)
        try writeAtomically(html, to: page)
        return Written(
            page: page, figureFolder: folder, drawn: figures.filter { $0.spec != nil }.map(\.name),
            missing: figures.compactMap { f in f.missing.map { (f.name, $0) } },
            warnings: data.warnings + document.warnings + (measured?.warnings ?? []), cells: data.cellCount)
    }

    /// Each drawn figure's specification in `folder`; returns their paths. The exports of
    /// a figure with nothing to draw, or of a workload figure this run has none for, are
    /// removed: left by an earlier report of other runs, they would pass for this one's.
    static func writeSpecs(_ figures: [ReportFigure], to folder: String) throws(ReportError) -> [String] {
        func removeExports(_ name: String) {
            for ext in ["vl.json", "svg", "png"] { try? FileManager.default.removeItem(atPath: "\(folder)/\(name).\(ext)") }
        }
        for w in ReportFigures.workloadFigureNames where !figures.contains(where: { $0.name == w.name }) { removeExports(w.name) }
        var specs: [String] = []
        for f in figures {
            guard let spec = f.spec else {
                removeExports(f.name)
                continue
            }
            let path = folder + "/" + f.name + ".vl.json"
            try writeAtomically(spec.prettyText, to: path)
            specs.append(path)
        }
        return specs
    }

    static func encode(_ document: ComparisonDocument) throws(ReportError) -> String {
        do { return try document.jsonText() } catch {
            throw ReportError("cannot encode the comparison: \(error)")
        }
    }

    static func writeAtomically(_ text: String, to path: String) throws(ReportError) {
        let tmp = path + ".tmp"
        do { try Data(text.utf8).write(to: URL(fileURLWithPath: tmp)) } catch {
            throw ReportError("cannot write \(path): \(error.localizedDescription)")
        }
        guard rename(tmp, path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: tmp)
            throw ReportError("cannot write \(path): \(reason)")
        }
    }
}
