import PeerBenchJSON
import PeerBenchPlugin

/// One figure of the report: a Vega-Lite specification with its data inline (written
/// beside the page as `NAME.vl.json` for users to edit, and rendered to `NAME.svg` and
/// `NAME.png`), or the reason there is nothing to draw.
struct ReportFigure: Sendable {
    /// File stem and HTML id: `throughput-vs-distance`.
    var name: String
    var title: String
    /// What the figure shows and how it was computed, one or two sentences.
    var caption: String
    /// nil when there is nothing to draw; then `missing` says why.
    var spec: JSONValue?
    var missing: String?

    init(name: String, title: String, caption: String, spec: JSONValue) {
        self.name = name
        self.title = title
        self.caption = caption
        self.spec = spec
    }

    init(name: String, title: String, caption: String, missing: String) {
        self.name = name
        self.title = title
        self.caption = caption
        self.missing = missing
    }

    /// The Vega-Lite version the specifications are written for (the one vl-convert bundles).
    static let schema: JSONValue = "https://vega.github.io/schema/vega-lite/v6.json"

    /// A top-level variable bound to a drop-down list, so one figure serves many
    /// scenarios or cells; static exports show its first value.
    static func pick(_ name: String, label: String, options: [String]) -> JSONValue {
        [
            "name": .string(name), "value": .string(options[0]),
            "bind": ["input": "select", "name": .string(label + " "), "options": .array(options.map { .string($0) })],
        ]
    }
}
